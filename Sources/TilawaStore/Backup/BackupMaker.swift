import Foundation
import GRDB
import Glibc

/// `tilawa backup create DIR` (DESIGN §12): a consistent copy of a state directory while the
/// daemon runs and uploads flow.
///
/// One read transaction of the database (a WAL snapshot) covers it all: SQLite's online backup
/// copies that snapshot, and every artifact its rows reference — originals, Ogg files and
/// their MP4/CAF variants, waveforms, voice clips, coach photos — is copied (or hard-linked
/// from `previous` when unchanged there: same size and modification time) while the
/// transaction is open, under `BackupLock`, so nothing the snapshot references is removed
/// before it is taken. All of it is made durable at once (one syncfs); `manifest.json` with
/// sizes and SHA-256 sums is written after that, so a half-made backup is never taken for a
/// whole one. Not in a backup:
/// unfinished resumable uploads (their clients start again), the drop folder (the coaches'
/// own sync) and secrets (they come from credentials; the manifest names the keys).
public struct BackupMaker: Sendable {
    public let database: AppDatabase
    public let stateDirectory: StateDirectory

    public init(database: AppDatabase, stateDirectory: StateDirectory) {
        self.database = database
        self.stateDirectory = stateDirectory
    }

    /// What a backup took.
    public struct Report: Sendable, Equatable {
        public var files = 0
        public var bytes: Int64 = 0
        /// Files hard-linked from the previous backup (not read again).
        public var linked = 0
        public var linkedBytes: Int64 = 0
        /// Rows whose file was already missing from the state directory (named; `status` says so too).
        public var missing: [String] = []
        public var databaseBytes: Int64 = 0
    }

    /// The keys a restored daemon needs from its credentials.
    public static let secrets = ["auth.jwt_key_file (by default the state directory's secrets/jwt.key)",
                                 "webhook.secret_file (and webhook.previous_secret_file while a rotation runs)"]

    /// Makes a backup in `directory` (absent, or an empty directory). `previous`, a whole backup
    /// (with its manifest), lends its unchanged files as hard links.
    public func create(at directory: String, previous: String? = nil, now: Date) throws -> Report {
        if !database.engine.isStateDirectoryFile {
            // A copy of a server's database through one client is neither consistent with what
            // other nodes write nor restorable as the server's own backups are.
            // Both named at once when both are remote: the operator needs both tools.
            let artifacts = stateDirectory.artifactStore.storage.backupRefusal.map { "; " + $0 } ?? ""
            throw BackupError("database_remote", """
                the database is \(database.engine.kind.rawValue), not the state directory's SQLite file: back it up with \
                its own tools (pg_dump, or point-in-time recovery from WAL archives)\(artifacts)
                """)
        }
        if let refusal = stateDirectory.artifactStore.storage.backupRefusal {
            // A copy of the database without the objects it names is not a backup, and copying a
            // bucket through one node is the store's job, not this command's.
            throw BackupError("artifacts_remote", refusal)
        }
        guard BackupFiles.isAbsentOrEmpty(directory) else {
            throw BackupError("target_not_empty", "\(directory) is not empty; a backup goes into a new or empty directory")
        }
        if mkdir(directory, 0o750) != 0, errno != EEXIST {
            throw BackupError("cannot_write", "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        let durable = try BackupFiles.FilesystemSync(directory)
        let lock = try BackupLock(stateRoot: stateDirectory.root).acquire()
        defer { close(lock) }
        let earlier: [String: BackupManifest.Entry] = try previous.map { previous in
            let manifest = try BackupVerifier.readManifest(previous)
            return Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        } ?? [:]

        let filesRoot = directory + "/" + BackupManifest.filesDirectory
        var made: Set<String> = [directory]
        var report = Report()
        var entries: [BackupManifest.Entry] = []
        let databasePath = directory + "/" + BackupManifest.databaseName
        let rootPath = stateDirectory.root.path
        var erased: [String] = []
        let migrations: [String] = try database.sqliteWriter().read { db in
            erased = try db.tableExists("erasure") ? String.fetchAll(db, sql: "SELECT studentId FROM erasure ORDER BY studentId") : []
            // The snapshot: the database copy and the files it names.
            do {
                let copy = try DatabaseQueue(path: databasePath)
                try copy.writeWithoutTransaction { destination in try db.backup(to: destination) }
                try copy.close()
            }
            var seen = Set<String>()
            func take(_ relative: String, optional: Bool) throws {
                guard seen.insert(relative).inserted else { return }
                guard BackupManifest.isSafe(relative) else {
                    throw BackupError("unsafe_path", "a row names \(relative), which is not a file of the state directory")
                }
                let source = rootPath + "/" + relative
                guard let info = BackupFiles.stat(source) else {
                    if !optional { report.missing.append(relative) }
                    return
                }
                try BackupFiles.makeParents(of: BackupManifest.filesDirectory + "/" + relative, under: directory, made: &made)
                let target = filesRoot + "/" + relative
                if let before = earlier[relative], let previous, before.size == info.size, before.modified == info.modified,
                   link(previous + "/" + BackupManifest.filesDirectory + "/" + relative, target) == 0 {
                    entries.append(before)
                    report.linked += 1
                    report.linkedBytes += before.size
                } else if let copied = try BackupFiles.copy(source, to: target) {
                    entries.append(.init(path: relative, size: copied.size, sha256: copied.sha256, modified: info.modified))
                    report.bytes += copied.size
                } else if !optional {
                    report.missing.append(relative)
                }
            }
            for (table, _, columns) in AppDatabase.artifactColumns {
                let rows = try Row.fetchCursor(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table)")
                while let row = try rows.next() {
                    for index in columns.indices {
                        guard let path = row[index] as String? else { continue }
                        try take("artifacts/" + path, optional: false)
                        for variant in ArtifactStore.variants(ofAudio: path) where !path.hasPrefix("originals/") {
                            try take("artifacts/" + variant, optional: true)
                        }
                    }
                }
            }
            for photo in try String.fetchAll(db, sql: "SELECT DISTINCT photoPath FROM coach WHERE photoPath IS NOT NULL") {
                try take(photo, optional: false)
            }
            return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
        guard let database = try BackupFiles.hash(databasePath), let info = BackupFiles.stat(databasePath) else {
            throw BackupError("cannot_write", "the database copy \(databasePath) is missing")
        }
        // Every copy, link, folder and the database on the disk before the manifest says so.
        try durable.sync()
        report.files = entries.count
        report.databaseBytes = database.size
        let manifest = BackupManifest(
            format: BackupManifest.currentFormat, createdAt: now,
            database: .init(path: BackupManifest.databaseName, size: database.size, sha256: database.sha256, modified: info.modified),
            migrations: migrations, files: entries.sorted { $0.path < $1.path }, secretsNotIncluded: Self.secrets,
            missingAtSource: report.missing.sorted(), erased: erased)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try BackupFiles.writeAtomically(try encoder.encode(manifest), to: directory + "/" + BackupManifest.fileName)
        return report
    }

}
