import GRDB

extension AppDatabase {
    /// The `meta` key of the running total of artifact bytes, kept by triggers.
    static let artifactBytesKey = "artifact_bytes"

    /// The migration "status: report indexes and meta": what `tilawa status` needs to stay
    /// fast on a million submissions, and a place for facts learnt slowly or kept running.
    /// Like every migration it is never edited once landed: a change is a new migration.
    ///
    /// - `meta` (key, value, updatedAt): the daemon's last full-sweep missing count, and
    ///   `artifact_bytes`, the bytes of originals and encoded audio the rows point to. That
    ///   total is seeded here and kept by triggers on `submission` and `feedback` in the
    ///   same transaction as every change, because summing a million rows takes longer than
    ///   the whole report may. A row's bytes are `originalBytes` while `originalPath` is set
    ///   (originals are pruned after their retention) plus `audioBytes` while `audioPath` is set.
    /// - Indexes so that every other query of `statusFacts` is an index range or a covering
    ///   scan, never a walk of the submission table.
    static func migrateStatusReport(_ db: Database) throws {
        try db.create(table: "meta") { t in
            t.primaryKey("key", .text)
            // Untyped: integers stay integers, text stays text.
            t.column("value").notNull()
            t.column("updatedAt", .datetime).notNull()
        }

        let submissionBytes = { (row: String) in
            "(CASE WHEN \(row).originalPath IS NULL THEN 0 ELSE \(row).originalBytes END"
                + " + CASE WHEN \(row).audioPath IS NULL THEN 0 ELSE COALESCE(\(row).audioBytes, 0) END)"
        }
        let feedbackBytes = { (row: String) in
            "(CASE WHEN \(row).audioPath IS NULL THEN 0 ELSE COALESCE(\(row).audioBytes, 0) END)"
        }
        try db.execute(sql: """
            INSERT INTO meta (key, value, updatedAt) VALUES (
                '\(artifactBytesKey)',
                (SELECT COALESCE(SUM(\(submissionBytes("submission"))), 0) FROM submission)
                    + (SELECT COALESCE(SUM(\(feedbackBytes("feedback"))), 0) FROM feedback),
                strftime('%Y-%m-%d %H:%M:%f', 'now'))
            """)
        for (table, bytes, columns) in [
            ("submission", submissionBytes, "originalPath, originalBytes, audioPath, audioBytes"),
            ("feedback", feedbackBytes, "audioPath, audioBytes"),
        ] {
            let add = { (amount: String) in
                "UPDATE meta SET value = value + \(amount) WHERE key = '\(artifactBytesKey)';"
            }
            try db.execute(sql: """
                CREATE TRIGGER \(table)_artifact_bytes_insert AFTER INSERT ON \(table)
                WHEN \(bytes("NEW")) <> 0 BEGIN \(add(bytes("NEW"))) END;
                CREATE TRIGGER \(table)_artifact_bytes_update AFTER UPDATE OF \(columns) ON \(table)
                WHEN \(bytes("NEW")) <> \(bytes("OLD")) BEGIN \(add("\(bytes("NEW")) - \(bytes("OLD"))")) END;
                CREATE TRIGGER \(table)_artifact_bytes_delete AFTER DELETE ON \(table)
                WHEN \(bytes("OLD")) <> 0 BEGIN \(add("-\(bytes("OLD"))")) END;
                """)
        }

        // Uploads accepted in the last 24 h / 7 days (covering), and the 7-day artifact check.
        try db.create(index: "submission_received_state", on: "submission", columns: ["receivedAt", "state"])
        try db.create(index: "feedback_received", on: "feedback", columns: ["receivedAt"])
        // Undelivered notifications: count and oldest in one index range.
        try db.create(index: "event_delivered_occurred", on: "event", columns: ["deliveredAt", "occurredAt"])
        // Encode jobs by state and age (queued, running, failed).
        try db.create(index: "job_state_created", on: "job", columns: ["state", "createdAt"])
        // Drop-folder rejections of the last 24 h.
        try db.create(index: "dropFile_outcome_processed", on: "dropFile", columns: ["outcome", "processedAt"])
    }
}
