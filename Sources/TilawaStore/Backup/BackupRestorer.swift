import Foundation
import GRDB
import Glibc
import TilawaCore

/// `tilawa restore DIR --state-dir NEW` (DESIGN §12): a verified backup becomes a state
/// directory a daemon starts from.
///
/// The target must be new or empty. The backup is verified first (a corrupt one restores
/// nothing); then the database and every file are copied (not linked: the backup stays
/// independent) and fsynced, and the copy is made ready for a new daemon: encode jobs that
/// were running are queued again, in-flight idempotency keys are dropped (their clients
/// retry), unfinished resumable uploads are dropped (their bytes were not backed up; the
/// phone starts again), and the database records that it was restored, from which backup.
public enum BackupRestorer {
    public struct Report: Sendable, Equatable {
        public var files: Int
        public var jobsRequeued: Int
        public var uploadsDropped: Int
        public var keysDropped: Int
        public var secretsNotIncluded: [String]
        /// Students the backup still had, erased again from the ledger.
        public var erasedAgain: [String] = []
    }

    /// The erasure ledger a restore re-applies: the restored database's own, every backup's
    /// beside `directory` (a newer one knows of later erasures), and `extra` (the live state
    /// directory's, exported with `tilawa erase --list`).
    public static func ledger(beside directory: String, extra: [String]) -> Set<String> {
        let parent = (directory as NSString).deletingLastPathComponent
        var ids = Set(extra)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.isEmpty ? "." : parent)) ?? [] {
            let sibling = (parent.isEmpty ? "." : parent) + "/" + name
            if let manifest = try? BackupVerifier.readManifest(sibling) { ids.formUnion(manifest.erased) }
        }
        return ids
    }

    /// The erasure ledger of a live installation, for `restore`'s `erasures`: `path` is its state
    /// directory (the ledger read from its database, read-only, while the daemon runs) or a file
    /// of ids, one a line (`tilawa erase --list`; blank lines and `#` comments skipped).
    public static func readLedger(at path: String) throws -> [String] {
        var directory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &directory) else {
            throw BackupError("no_ledger", "\(path) does not exist; give the live state directory or a file from `tilawa erase --list`")
        }
        if directory.boolValue {
            let database = path + "/" + BackupManifest.databaseName
            guard FileManager.default.fileExists(atPath: database) else {
                throw BackupError("no_ledger", "\(path) holds no \(BackupManifest.databaseName) (a PostgreSQL installation keeps its ledger there): "
                                  + "give a file from `tilawa erase --list` instead")
            }
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: database, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                guard try db.tableExists("erasure") else { return [] }
                return try String.fetchAll(db, sql: "SELECT studentId FROM erasure ORDER BY studentId")
            }
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw BackupError("no_ledger", "\(path) cannot be read as UTF-8 text")
        }
        var ids: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let id = line.trimmingCharacters(in: .whitespaces)
            if id.isEmpty || id.hasPrefix("#") { continue }
            guard Identifier.isValid(id) else {
                throw BackupError("bad_ledger", "\(path):\(number + 1): \(MessageQuoting.quoted(String(id.prefix(80)))) is not a student id")
            }
            ids.append(id)
        }
        return ids
    }

    public static func restore(from directory: String, to target: String, erasures extra: [String] = [], now: Date) throws -> Report {
        let manifest = try BackupVerifier.readManifest(directory)
        // A newer release's database cannot be read by this one; an older one is migrated below.
        let known = Set(AppDatabase.migrator.migrations)
        if let unknown = manifest.migrations.first(where: { !known.contains($0) }) {
            throw BackupError("newer_version", "\(directory) was made by a newer Tilawa (its database has the migration "
                              + "\(MessageQuoting.quoted(unknown)), which this one does not know); restore it with that version or a later one")
        }
        _ = try BackupVerifier.verify(directory)
        guard BackupFiles.isAbsentOrEmpty(target) else {
            throw BackupError("target_not_empty", "\(target) is not empty; restore into a new or empty directory")
        }
        if mkdir(target, 0o750) != 0, errno != EEXIST {
            throw BackupError("cannot_write", "cannot create \(target): \(String(cString: strerror(errno)))")
        }
        let durable = try BackupFiles.FilesystemSync(target)
        var made: Set<String> = [target]
        for entry in manifest.files {
            try BackupFiles.makeParents(of: entry.path, under: target, made: &made)
            let source = directory + "/" + BackupManifest.filesDirectory + "/" + entry.path
            guard let copied = try BackupFiles.copy(source, to: target + "/" + entry.path), copied.sha256 == entry.sha256 else {
                throw BackupError("corrupt_file", "\(source) changed while it was restored")
            }
        }
        let databasePath = target + "/" + BackupManifest.databaseName
        guard let copied = try BackupFiles.copy(directory + "/" + BackupManifest.databaseName, to: databasePath),
              copied.sha256 == manifest.database.sha256 else {
            throw BackupError("corrupt_file", "\(directory)/\(BackupManifest.databaseName) changed while it was restored")
        }
        // This release's names of the secret files (an older manifest may name keys that no longer exist).
        var report = Report(files: manifest.files.count, jobsRequeued: 0, uploadsDropped: 0, keysDropped: 0,
                            secretsNotIncluded: BackupMaker.secrets)
        let queue = try DatabaseQueue(path: databasePath)
        // A backup of an older release: its schema brought up to this one's first, as the daemon
        // would on start, so the fix-ups below find the tables they change.
        try AppDatabase.migrator.migrate(queue)
        try queue.write { db in
            try db.execute(sql: "UPDATE job SET state = 'queued', lockedBy = NULL, lockedAt = NULL WHERE state = 'running'")
            report.jobsRequeued = db.changesCount
            try db.execute(sql: "DELETE FROM idempotencyKey WHERE state = 'in_flight'")
            report.keysDropped = db.changesCount
            try db.execute(sql: "DELETE FROM resumableUpload WHERE state != 'answered'")
            report.uploadsDropped = db.changesCount
            for (key, value) in [("restored_at", now.formatted(.iso8601)), ("restored_from_backup_of", manifest.createdAt.formatted(.iso8601))] {
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value, updatedAt) VALUES (?, ?, ?)", arguments: [key, value, now])
            }
            // An older backup cannot bring an erased student back.
            let already = Set(try String.fetchAll(db, sql: "SELECT studentId FROM erasure"))
            for id in ledger(beside: directory, extra: extra).union(manifest.erased).subtracting(already).sorted() {
                guard case let .success(erasure) = try AppDatabase.erase(SQLSession(db), studentId: id, force: true, by: "restore",
                                                                          reason: "erased after this backup was made", now: now) else { continue }
                for path in erasure.files { unlink(target + "/artifacts/" + path) }
                report.erasedAgain.append(id)
            }
        }
        try queue.close()
        try durable.sync()
        return report
    }
}
