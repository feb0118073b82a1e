import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The database side of the operations report (DESIGN §7), read in one transaction.
    ///
    /// Every query is an index range or a covering-index scan (migration "status: report
    /// indexes and meta"), so this stays fast on a million submissions. A database without
    /// the schema yet gives empty facts; one older than that migration still answers, slower.
    ///
    /// - Parameters:
    ///   - now: The instant windows are measured back from.
    ///   - feedbackDue: `program.feedback_due_hours` in seconds, used only on a database from
    ///     before enrolments (where submissions carry no due instant of their own).
    ///   - recentWindow: How far back rows have their artifact paths listed for the missing-file check.
    public func statusFacts(now: Date, feedbackDue: TimeInterval, recentWindow: TimeInterval = 7 * 86_400) throws -> StatusFacts {
        try engine.read(Self.statusFactsQuery(now: now, feedbackDue: feedbackDue, recentWindow: recentWindow))
    }

    /// `statusFacts` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func statusFacts(now: Date, feedbackDue: TimeInterval, recentWindow: TimeInterval = 7 * 86_400) async throws -> StatusFacts {
        try await engine.read(Self.statusFactsQuery(now: now, feedbackDue: feedbackDue, recentWindow: recentWindow))
    }

    /// The transaction of `statusFacts`, shared by its synchronous and async forms.
    static func statusFactsQuery(now: Date, feedbackDue: TimeInterval, recentWindow: TimeInterval = 7 * 86_400) -> @Sendable (SQLSession) throws -> StatusFacts {
        { db in
            var facts = StatusFacts()
            guard try db.tableExists("submission") else { return facts }
            facts.hasSchema = true
            let dayAgo = now.addingTimeInterval(-86_400)
            let weekAgo = now.addingTimeInterval(-7 * 86_400)

            if let row = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(CASE WHEN receivedAt >= ? THEN 1 ELSE 0 END), 0) AS day, COUNT(*) AS week FROM submission
                WHERE receivedAt >= ? AND state NOT IN \(SubmissionState.notCountedSQL)
                """, arguments: [dayAgo, weekAgo]) {
                facts.last24h.accepted = row["day"]
                facts.last7d.accepted = row["week"]
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT code, COALESCE(SUM(CASE WHEN receivedAt >= ? THEN 1 ELSE 0 END), 0) AS day, COUNT(*) AS week FROM rejection
                WHERE receivedAt >= ? GROUP BY code
                """, arguments: [dayAgo, weekAgo]) {
                let code: String = row["code"]
                let day: Int = row["day"]
                if day > 0 { facts.last24h.rejectedByReason[code] = day }
                facts.last7d.rejectedByReason[code] = row["week"]
            }

            let awaiting = SubmissionState.awaitingFeedback.rawValue
            if let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS count, MIN(receivedAt) AS oldest FROM submission WHERE state = ?
                """, arguments: [awaiting]) {
                facts.awaitingFeedback = row["count"]
                facts.oldestAwaitingReceivedAt = row["oldest"]
            }
            if try db.tableExists("enrolment") {
                // Past each submission's own due instant, counted for the coach of its
                // enrolment (placing assessments of unplaced students under "unplaced").
                for row in try Row.fetchAll(db, sql: """
                    SELECT COALESCE(enrolment.coachId, 'unplaced') AS coach, COUNT(*) AS count FROM submission
                    JOIN enrolment ON enrolment.id = submission.enrolmentId
                    WHERE submission.state = ? AND submission.feedbackDueAt < ?
                    GROUP BY 1
                    """, arguments: [awaiting, now]) {
                    facts.overdueByCoach[row["coach"]] = row["count"]
                }
                facts.turnaround = try Self.replyTurnaround(db, now: now)
                // Awaiting placement: students none of whose enrolments has a level yet.
                if let row = try Row.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(DISTINCT studentId) FROM enrolment WHERE levelId IS NULL AND studentId NOT IN
                                (SELECT studentId FROM enrolment WHERE levelId IS NOT NULL)) AS unplaced,
                           (SELECT COUNT(*) FROM enrolment WHERE outcome = 'graduated') AS graduated
                    """) {
                    facts.awaitingPlacement = row["unplaced"]
                    facts.graduated = row["graduated"]
                }
            } else {
                // A database the daemon has not migrated yet (status reads it read-only).
                for row in try Row.fetchAll(db, sql: """
                    SELECT student.coachId AS coach, COUNT(*) AS count FROM submission
                    JOIN student ON student.id = submission.studentId
                    WHERE submission.state = ? AND submission.receivedAt < ?
                    GROUP BY student.coachId
                    """, arguments: [awaiting, now.addingTimeInterval(-feedbackDue)]) {
                    facts.overdueByCoach[row["coach"]] = row["count"]
                }
            }

            var oldestPending: Date?
            for row in try Row.fetchAll(db, sql: """
                SELECT state, COUNT(*) AS count, MIN(createdAt) AS oldest FROM job
                WHERE state IN ('queued', 'running', 'failed') GROUP BY state
                """) {
                let count: Int = row["count"]
                let oldest: Date? = row["oldest"]
                switch row["state"] as String {
                case JobRecord.State.queued.rawValue: facts.jobsQueued = count
                case JobRecord.State.running.rawValue: facts.jobsRunning = count
                default:
                    facts.jobsFailed = count
                    continue
                }
                if let oldest, oldestPending.map({ oldest < $0 }) ?? true { oldestPending = oldest }
            }
            facts.oldestPendingJobCreatedAt = oldestPending

            if let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS count, MIN(occurredAt) AS oldest FROM event WHERE deliveredAt IS NULL
                """) {
                facts.undeliveredEvents = row["count"]
                facts.oldestUndeliveredOccurredAt = row["oldest"]
            }
            if try db.tableExists("comment"), let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS open, COALESCE(SUM(CASE WHEN dueAt < ? THEN 1 ELSE 0 END), 0) AS overdue FROM comment
                WHERE author = 'student' AND answeredAt IS NULL
                """, arguments: [now]) {
                facts.openQuestions = row["open"]
                facts.overdueQuestions = row["overdue"]
            }
            // A database from before erasure requests (status reads it without migrating) has none.
            if try db.tableExists("erasureRequest"), let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS pending, MIN(dueAt) AS earliest, COALESCE(SUM(CASE WHEN dueAt < ? THEN 1 ELSE 0 END), 0) AS late
                FROM erasureRequest WHERE cancelledAt IS NULL
                """, arguments: [now.addingTimeInterval(-Self.erasureRequestLateAfter)]) {
                facts.erasureRequestsPending = row["pending"]
                facts.earliestErasureDueAt = row["earliest"]
                facts.erasureRequestsLate = row["late"]
            }
            if let disabled = try Self.webhookDisabled(db) {
                facts.webhookDisabled = "\(disabled.reason) at \(disabled.since.formatted(.iso8601))"
            }

            facts.artifactBytes = try Self.artifactBytes(db)

            let recentSince = now.addingTimeInterval(-recentWindow)
            facts.recentSince = recentSince
            var paths: [String] = []
            for table in ["submission", "feedback"] {
                // A cursor: tens of thousands of rows, decoded without copies.
                try db.forEachRow(sql: """
                    SELECT originalPath, audioPath, waveformPath FROM \(table) WHERE receivedAt >= ?
                    """, arguments: [recentSince]) { row in
                    for column in ["originalPath", "audioPath", "waveformPath"] {
                        if let path = row[column] as String? { paths.append(path) }
                    }
                }
            }
            // Voice clips: comments', and annotations' spoken corrections (a database from
            // before annotations, read by `status` without migrating, has none).
            for table in ["comment", "annotation"] {
                guard try db.tableExists(table) else { continue }
                try db.forEachRow(sql: """
                    SELECT audioPath, waveformPath FROM \(table) WHERE createdAt >= ? AND audioPath IS NOT NULL
                    """, arguments: [recentSince]) { row in
                    for column in ["audioPath", "waveformPath"] {
                        if let path = row[column] as String? { paths.append(path) }
                    }
                }
            }
            facts.recentArtifactPaths = paths

            facts.dropboxRejectedLast24h = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM dropFile WHERE outcome = 'rejected' AND processedAt >= ?
                """, arguments: [dayAgo]) ?? 0
            facts.lastSweep = try Self.lastArtifactSweep(db)
            facts.lastBackup = try Self.lastBackup(db)
            facts.pushes = try Self.pushSummary(db, now: now)
            // Nodes and leases are on the wall clock, as the daemons write them (never the programme's).
            let wallNow = Date()
            facts.nodes = try Self.nodeFacts(db, now: wallNow)
            facts.expiredJobLeases = try Self.expiredJobLeaseCount(db, now: wallNow)
            // SQLite's size is its file's (the reporter reads it); PostgreSQL's is the server's to say.
            if db.sqlite == nil {
                facts.databaseBytes = try Int64.fetchOne(db, sql: "SELECT pg_database_size(current_database())")
            }
            return facts
        }
    }
}

extension AppDatabase {
    /// Bytes of originals and encoded audio the rows point to: the running total the
    /// triggers keep in `meta`, or (a schema from before them) the sum over the rows.
    static func artifactBytes(_ db: SQLSession) throws -> Int64 {
        if try db.tableExists("meta"),
           let total = try Int64.fetchOne(db, sql: "SELECT CAST(value AS BIGINT) FROM meta WHERE key = ?", arguments: [artifactBytesKey]) {
            // Plus the MP4 and CAF variants as the last full sweep counted them.
            let variants = try Int64.fetchOne(db, sql: "SELECT CAST(value AS BIGINT) FROM meta WHERE key = ?", arguments: [variantBytesKey]) ?? 0
            return total + variants
        }
        return try Int64.fetchOne(db, sql: """
            SELECT (SELECT COALESCE(SUM(CASE WHEN originalPath IS NULL THEN 0 ELSE originalBytes END
                                        + CASE WHEN audioPath IS NULL THEN 0 ELSE COALESCE(audioBytes, 0) END), 0) FROM submission)
                 + (SELECT COALESCE(SUM(CASE WHEN audioPath IS NULL THEN 0 ELSE COALESCE(audioBytes, 0) END), 0) FROM feedback)
            """) ?? 0
    }
}
