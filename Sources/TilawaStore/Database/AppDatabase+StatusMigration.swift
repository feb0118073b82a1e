import GRDB

extension AppDatabase {
    /// The migration "status: report indexes and meta": what `tilawa status` needs to stay
    /// fast on a million submissions, and a place for the daemon to leave facts it learns
    /// slowly (the missing-file count of its last full artifact sweep).
    ///
    /// Every index serves one query of `statusFacts(now:feedbackDue:)` as a covering index or
    /// a short range scan, so the report never walks the submission table. Like every
    /// migration it is never edited once landed: a change is a new migration.
    static func migrateStatusReport(_ db: Database) throws {
        try db.create(table: "meta") { t in
            t.primaryKey("key", .text)
            // Untyped: integers stay integers, text stays text.
            t.column("value").notNull()
            t.column("updatedAt", .datetime).notNull()
        }
        // Uploads accepted in the last 24 h / 7 days (covering), and the 7-day artifact check.
        try db.create(index: "submission_received_state", on: "submission", columns: ["receivedAt", "state"])
        try db.create(index: "feedback_received", on: "feedback", columns: ["receivedAt"])
        // Bytes used by artifacts: SUM over small covering indexes instead of the table.
        // Encoded audio has `audioBytes` set together with `audioPath`; originals are pruned
        // after their retention, so the partial index holds only the recent ones.
        try db.create(index: "submission_audio_bytes", on: "submission", columns: ["audioBytes"])
        try db.create(index: "feedback_audio_bytes", on: "feedback", columns: ["audioBytes"])
        try db.create(
            index: "submission_original_bytes", on: "submission", columns: ["originalBytes", "originalPath"],
            condition: Column("originalPath") != nil)
        // Undelivered notifications: count and oldest in one index range.
        try db.create(index: "event_delivered_occurred", on: "event", columns: ["deliveredAt", "occurredAt"])
        // Encode jobs by state and age (queued, running, failed).
        try db.create(index: "job_state_created", on: "job", columns: ["state", "createdAt"])
        // Drop-folder rejections of the last 24 h.
        try db.create(index: "dropFile_outcome_processed", on: "dropFile", columns: ["outcome", "processedAt"])
    }
}
