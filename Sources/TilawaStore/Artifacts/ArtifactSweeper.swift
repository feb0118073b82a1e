import Foundation
import GRDB

/// Keeps the state directory and the database in agreement (DESIGN §6).
///
/// Files younger than `grace` are left alone: another process (a `tilawa ingest` next to
/// the daemon) may be between writing a file and committing the row that points to it.
public struct ArtifactSweeper: Sendable {
    public let database: AppDatabase
    public let stateDirectory: StateDirectory
    public var grace: TimeInterval
    /// The least grace for objects in an S3 store (`ArtifactStorage.orphanAge(grace:)`).
    public static let remoteGrace: TimeInterval = 3_600

    /// Creates a sweeper.
    public init(database: AppDatabase, stateDirectory: StateDirectory, grace: TimeInterval = 600) {
        self.database = database
        self.stateDirectory = stateDirectory
        self.grace = grace
    }

    /// Removes staging leftovers and unreferenced artifacts, prunes originals older than
    /// `originalsRetentionDays` whose recording is encoded, and lists rows whose file is missing.
    ///
    /// `isStopping` is asked between files (a million rows take many seconds); once it answers
    /// true the sweep throws `SweepInterrupted` and records nothing. What it removed until then
    /// was an orphan or a staging leftover either way.
    public func sweep(now: Date, originalsRetentionDays: Int?, isStopping: () -> Bool = { false }) throws -> SweepReport {
        var report = SweepReport()
        // An object's LastModified is the store's clock (which a node's may be up to the 15
        // minutes SigV4 allows off) and, for a multipart upload, when it began: an hour at least.
        let store = stateDirectory.artifactStore
        let cutoff = now.addingTimeInterval(-store.storage.orphanAge(grace: grace))
        report.stagingRemoved = removeStagingLeftovers(now: now)
        if let days = originalsRetentionDays {
            report.originalsPruned = try pruneOriginals(olderThan: now.addingTimeInterval(-Double(days) * 86_400))
        }
        // Month by month (the layout is `family/YYYY/MM/`, dated like the rows): only one
        // month's paths are held at a time, not every path of a million rows. With artifacts in
        // an S3 store a month is one listing per family (a HEAD per file would take hours), and
        // the local directory is only a work area whose old files are leftovers.
        let layout = try store.layout()
        // Only in a prefix this installation holds: another's objects are not orphans.
        if let other = try store.storage.claim(for: { try database.installationId(now: now) }) {
            throw StoreError.internalInconsistency("\(store.storage.description) belongs to installation \(other); nothing swept")
        }
        report.orphansRemoved += store.storage.removeWorkAreaLeftovers(before: cutoff)
        if store.storage.keepsUploadAppends {
            report.orphansRemoved += try removeUploadLeftovers(store.storage, before: cutoff)
        }
        var missing: [String] = []
        for month in layout.months.union(try database.artifactMonths()).sorted() {
            if isStopping() { throw SweepInterrupted() }
            let referenced = try database.referencedArtifactPaths(month: month)
            var present = Set<String>()
            for family in ArtifactStore.Family.allCases {
                for entry in try store.entries(family: family, month: month) {
                    present.insert(entry.path)
                    guard !referenced.contains(entry.path) else { continue }
                    // An MP4 or CAF variant lives as long as its Ogg file (it is not missing when
                    // absent: the audio route makes it again); its bytes are counted here.
                    if let ogg = ArtifactStore.audioPath(ofVariant: entry.path), referenced.contains(ogg) {
                        report.variantBytes += entry.size
                        continue
                    }
                    if isStopping() { throw SweepInterrupted() }
                    // A row dated in another month may point here (a clip made at midnight): ask exactly.
                    if entry.modified.map({ $0 < cutoff }) ?? false, try !database.isArtifactReferenced(entry.path) {
                        store.remove(entry.path)
                        report.orphansRemoved += 1
                    }
                }
            }
            // A path not under its row's month (that midnight clip) is looked up on its own.
            for path in referenced where !present.contains(path) && !store.exists(path) {
                report.missingCount += 1
                if missing.count < SweepReport.missingExamples { missing.append(path) }
            }
        }
        for file in layout.strays {
            if isStopping() { throw SweepInterrupted() }
            if Self.modified(store.path(file)).map({ $0 < cutoff }) ?? false, try !database.isArtifactReferenced(file) {
                store.remove(file)
                report.orphansRemoved += 1
            }
        }
        report.missing = missing.sorted()
        try database.recordArtifactSweep(missing: report.missingCount, variantBytes: report.variantBytes, at: now)
        return report
    }

    /// Removes the append objects (`uploads/<id>/…`) of uploads no longer open, written before
    /// `cutoff`: a node that died between storing an append and recording it, or between
    /// judging an upload and removing its objects, leaves them behind.
    private func removeUploadLeftovers(_ storage: any ArtifactStorage, before cutoff: Date) throws -> Int {
        let open = try database.openUploadIds()
        var removed = 0
        for entry in try storage.list(prefix: "uploads/") {
            let parts = entry.path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 2, !open.contains(String(parts[1])), entry.modified.map({ $0 < cutoff }) ?? false else { continue }
            storage.remove(entry.path)
            removed += 1
        }
        return removed
    }

    /// Removes the files in `staging/` older than `grace`: uploads cut off by a crash or a
    /// disconnect. Cheap (one directory), unlike the walk of every artifact in `sweep`.
    public func removeStagingLeftovers(now: Date) -> Int {
        let cutoff = now.addingTimeInterval(-grace)
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory.staging.path)) ?? [] {
            let path = stateDirectory.staging.appendingPathComponent(name).path
            if Self.modified(path).map({ $0 < cutoff }) ?? false, unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    private func pruneOriginals(olderThan limit: Date) throws -> Int {
        let store = stateDirectory.artifactStore
        // The row stops pointing to the file first: a crash in between leaves an orphan
        // (swept next time), never a row pointing to nothing.
        let paths: [String] = try database.engine.write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, originalPath FROM submission
                WHERE originalPath IS NOT NULL AND audioPath IS NOT NULL AND receivedAt < ?
                """, arguments: [limit])
            for row in rows {
                try db.execute(sql: "UPDATE submission SET originalPath = NULL WHERE id = ?", arguments: [row["id"] as String])
            }
            return rows.map { $0["originalPath"] as String }
        }
        for path in paths { store.remove(path) }
        return paths.count
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

extension AppDatabase {
    /// The artifact columns of each table that has them, and the instant its paths are dated by.
    static let artifactColumns: [(table: String, date: String, columns: [String])] = [
        ("submission", "receivedAt", ["originalPath", "audioPath", "waveformPath"]),
        ("feedback", "receivedAt", ["originalPath", "audioPath", "waveformPath"]),
        ("comment", "createdAt", ["audioPath", "waveformPath"]),
        ("annotation", "createdAt", ["audioPath", "waveformPath"]),
    ]

    /// The months (`YYYY/MM`, UTC) between the first and the last row of each table: those
    /// whose artifacts the sweep checks. Two index lookups per table.
    public func artifactMonths() throws -> Set<String> {
        try engine.read { db in
            var months = Set<String>()
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            for (table, date, _) in Self.artifactColumns {
                guard let first = try Date.fetchOne(db, sql: "SELECT MIN(\(date)) FROM \(table)"),
                      let last = try Date.fetchOne(db, sql: "SELECT MAX(\(date)) FROM \(table)"),
                      var month = calendar.date(from: calendar.dateComponents([.year, .month], from: first)) else { continue }
                while month <= last {
                    months.insert(ArtifactStore.monthKey(month))
                    guard let next = calendar.date(byAdding: .month, value: 1, to: month) else { break }
                    month = next
                }
            }
            return months
        }
    }

    /// The artifact paths of the rows dated in `month` (`YYYY/MM`, UTC), read through the
    /// date indexes.
    public func referencedArtifactPaths(month: String) throws -> Set<String> {
        guard let (start, end) = ArtifactStore.monthBounds(month) else { return [] }
        return try engine.read { db in
            var paths = Set<String>()
            for (table, date, columns) in Self.artifactColumns {
                try db.forEachRow(sql: """
                    SELECT \(columns.joined(separator: ", ")) FROM \(table) WHERE \(date) >= ? AND \(date) < ?
                    """, arguments: [start, end]) { row in
                    for column in columns {
                        if let path = row[column] as String? { paths.insert(path) }
                    }
                }
            }
            return paths
        }
    }

    /// Whether any row points to `path` (a full look: for the rare file its month's rows do not name).
    public func isArtifactReferenced(_ path: String) throws -> Bool {
        // The path itself, or (for an MP4 or CAF variant) the Ogg file it goes with.
        let candidates = [path] + [ArtifactStore.audioPath(ofVariant: path)].compactMap { $0 }
        return try engine.read { db in
            for candidate in candidates {
                for (table, _, columns) in Self.artifactColumns {
                    let condition = columns.map { "\($0) = ?" }.joined(separator: " OR ")
                    let arguments = SQLArguments(Array(repeating: candidate, count: columns.count))
                    if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE \(condition))", arguments: arguments) ?? false {
                        return true
                    }
                }
            }
            return false
        }
    }
}
