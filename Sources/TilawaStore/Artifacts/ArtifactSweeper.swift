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
        let cutoff = now.addingTimeInterval(-grace)
        report.stagingRemoved = removeStagingLeftovers(now: now)
        if let days = originalsRetentionDays {
            report.originalsPruned = try pruneOriginals(olderThan: now.addingTimeInterval(-Double(days) * 86_400))
        }
        let store = stateDirectory.artifactStore
        let referenced = try database.referencedArtifactPaths()
        for file in store.allFiles() where !referenced.contains(file) {
            if isStopping() { throw SweepInterrupted() }
            if Self.modified(store.path(file)).map({ $0 < cutoff }) ?? false {
                store.remove(file)
                report.orphansRemoved += 1
            }
        }
        var missing: [String] = []
        for (index, path) in referenced.enumerated() {
            if index % 1_024 == 0, isStopping() { throw SweepInterrupted() }
            if !store.exists(path) { missing.append(path) }
        }
        report.missing = missing.sorted()
        try database.recordArtifactSweep(missing: report.missing.count, at: now)
        return report
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
        let paths: [String] = try database.writer.write { db in
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

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

extension AppDatabase {
    /// Every artifact path a row points to.
    public func referencedArtifactPaths() throws -> Set<String> {
        try writer.read { db in
            var paths = Set<String>()
            for sql in [
                "SELECT originalPath FROM submission WHERE originalPath IS NOT NULL",
                "SELECT audioPath FROM submission WHERE audioPath IS NOT NULL",
                "SELECT waveformPath FROM submission WHERE waveformPath IS NOT NULL",
                "SELECT originalPath FROM feedback WHERE originalPath IS NOT NULL",
                "SELECT audioPath FROM feedback WHERE audioPath IS NOT NULL",
                "SELECT waveformPath FROM feedback WHERE waveformPath IS NOT NULL",
                "SELECT audioPath FROM comment WHERE audioPath IS NOT NULL",
                "SELECT waveformPath FROM comment WHERE waveformPath IS NOT NULL",
            ] {
                paths.formUnion(try String.fetchAll(db, sql: sql))
            }
            return paths
        }
    }
}
