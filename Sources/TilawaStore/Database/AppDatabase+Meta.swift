import Foundation
import GRDB

extension AppDatabase {
    /// The `meta` key of the last full sweep's missing-file count.
    static let missingArtifactsKey = "missing_artifacts_total"

    /// Records how many rows the full artifact sweep found pointing to a missing file, so
    /// `tilawa status` can report it without checking every row itself.
    public func recordArtifactSweep(missing: Int, variantBytes: Int64 = 0, at date: Date) throws {
        try engine.write { db in
            try Self.setMeta(db, key: Self.missingArtifactsKey, value: missing, at: date)
            try Self.setMeta(db, key: Self.variantBytesKey, value: variantBytes, at: date)
        }
    }

    /// Bytes of the MP4 and CAF variants at the last full sweep (no row counts them).
    static let variantBytesKey = "variant_bytes"

    /// Sets `meta[key]` (inside the caller's transaction).
    static func setMeta(_ db: SQLSession, key: String, value: some DatabaseValueConvertible, at date: Date) throws {
        try db.execute(sql: """
            INSERT INTO meta (key, value, updatedAt) VALUES (?, ?, ?)
            ON CONFLICT(key) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt
            """, arguments: [key, value, date])
    }

    /// The `meta` key of this installation's id (see `installationId`).
    static let installationKey = "installation_id"

    /// This installation's id: made once, the first time it is asked for, and kept with the data
    /// (every node of one database shares it). An S3 prefix is claimed in its name, so that a
    /// second installation pointed at the same prefix is refused rather than sweep the first's
    /// objects as orphans.
    public func installationId(now: Date) throws -> String {
        try engine.write { db in
            if let id = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.installationKey]) { return id }
            let id = UUID().uuidString.lowercased()
            try Self.setMeta(db, key: Self.installationKey, value: id, at: now)
            return id
        }
    }

    /// The last full sweep's result, or nil when none was recorded (or the schema predates `meta`).
    public func lastArtifactSweep() throws -> ArtifactSweepSummary? {
        try engine.read { db in try Self.lastArtifactSweep(db) }
    }

    static func lastArtifactSweep(_ db: SQLSession) throws -> ArtifactSweepSummary? {
        guard try db.tableExists("meta"),
              let row = try Row.fetchOne(db, sql: "SELECT CAST(value AS BIGINT) AS value, updatedAt FROM meta WHERE key = ?",
                                      arguments: [missingArtifactsKey]),
              let missing = row["value"] as Int?, let sweptAt = row["updatedAt"] as Date? else { return nil }
        return ArtifactSweepSummary(missing: missing, sweptAt: sweptAt)
    }
}
