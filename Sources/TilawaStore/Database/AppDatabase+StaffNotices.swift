import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The migration "notifications: events about no student": a coach's daily digest and
    /// operations' `storage_low` are about no student, so `event.studentId` becomes nullable
    /// (SQLite cannot drop NOT NULL: the table is rebuilt with the same rows, cursors and
    /// indexes), and `staffNotice` keys each such notice once per (kind, recipient, local day).
    /// Never edited once landed.
    static func migrateStaffNotices(_ db: Database) throws {
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'")
        try db.create(table: "newEvent") { t in
            t.autoIncrementedPrimaryKey("seq")
            t.column("id", .text).notNull().unique()
            t.column("studentId", .text)
            t.column("type", .text).notNull()
            t.column("payload", .jsonText).notNull()
            t.column("occurredAt", .datetime).notNull()
            t.column("deliveredAt", .datetime)
            t.column("attempts", .integer).notNull().defaults(to: 0)
            t.column("nextAttemptAt", .datetime).notNull()
            t.column("lastError", .text)
            t.column("recipient", .text).notNull().defaults(to: "student")
            t.column("recipientId", .text)
            t.column("queue", .text).notNull().defaults(to: "")
        }
        let columns = "seq, id, studentId, type, payload, occurredAt, deliveredAt, attempts, nextAttemptAt, lastError, recipient, recipientId, queue"
        try db.execute(sql: "INSERT INTO newEvent (\(columns)) SELECT \(columns) FROM event")
        try db.drop(table: "event")
        try db.rename(table: "newEvent", to: "event")
        // Cursors never go back, even past events deleted before the rebuild.
        if let sequence {
            let copied = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") ?? 0
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'event'")
            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('event', ?)", arguments: [max(sequence, copied)])
        }
        try db.create(index: "event_student_seq", on: "event", columns: ["studentId", "seq"])
        try db.create(index: "event_undelivered", on: "event", columns: ["deliveredAt", "nextAttemptAt"])
        try db.create(index: "event_delivered_occurred", on: "event", columns: ["deliveredAt", "occurredAt"])
        try db.create(index: "event_queue_seq", on: "event", columns: ["queue", "seq"])
        try db.create(index: "event_recipient_seq", on: "event", columns: ["recipient", "recipientId", "seq"])

        try db.create(table: "staffNotice") { t in
            t.column("kind", .text).notNull()
            t.column("recipientId", .text).notNull()
            t.column("localDate", .text).notNull()
            t.column("eventId", .text).notNull()
            t.column("sentAt", .datetime).notNull()
            t.primaryKey(["kind", "recipientId", "localDate"])
        }
    }

    /// Records `coach_digest` for every coach with something in their queue (recordings
    /// awaiting their reply, students' open questions), once per coach and local day from
    /// `moment` on; a coach whose queue is empty at the first check of the day gets none
    /// that day. The day is claimed in `staffNotice` in the same transaction as the event, so
    /// a restart or a second daemon sends nothing twice. Returns how many were recorded.
    @discardableResult
    public func recordCoachDigests(moment: DailyMoment, timeZone: TimeZone, now: Date) async throws -> Int {
        guard let day = moment.dueDay(at: now, timeZone: timeZone) else { return 0 }
        return try await immediateWrite { db in
            let claimed = Set(try String.fetchAll(db, sql: """
                SELECT recipientId FROM staffNotice WHERE kind = ? AND localDate = ?
                """, arguments: [EventType.coachDigest.rawValue, day.description]))
            var sent = 0
            for coach in try CoachRecord.fetchAll(db) where !claimed.contains(coach.id) {
                let queue = try Self.coachQueueQuery(coachId: coach.id, now: now)(db)
                let open = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM comment JOIN submission ON submission.id = comment.submissionId
                    JOIN enrolment ON enrolment.id = submission.enrolmentId
                    WHERE comment.author = 'student' AND comment.answeredAt IS NULL AND \(Self.answeredByCoachSQL)
                    """, arguments: ["coach": coach.id, "now": now]) ?? 0
                var eventId = ""
                if !queue.isEmpty || open > 0 {
                    let dues = queue.map(\.submission.feedbackDueAt)
                    let digest = EventPayload.QueueDigest(
                        awaiting: queue.count, overdue: dues.filter { $0 < now }.count, openQuestions: open, oldestDueAt: dues.min())
                    let message = StaffMessages.coachDigest(
                        awaiting: digest.awaiting, overdue: digest.overdue, openQuestions: open,
                        oldestDue: digest.oldestDueAt, zone: timeZone)
                    eventId = try Self.recordStaffEvent(
                        db, type: .coachDigest, occurredAt: now, message: message, link: .coachQueue,
                        extra: .init(queue: digest), recipient: .coach(coach.id))
                    sent += 1
                }
                try db.execute(sql: """
                    INSERT INTO staffNotice (kind, recipientId, localDate, eventId, sentAt) VALUES (?, ?, ?, ?, ?)
                    """, arguments: [EventType.coachDigest.rawValue, coach.id, day.description, eventId, now])
            }
            return sent
        }
    }

    /// Records `storage_low` for operations at most once per local day (the caller decides
    /// the disk is low). Returns whether one was recorded.
    @discardableResult
    public func recordStorageLow(_ storage: EventPayload.StorageFacts, timeZone: TimeZone, now: Date) async throws -> Bool {
        let day = DailyMoment.day(of: now, in: timeZone)
        return try await immediateWrite { db in
            try db.execute(sql: """
                INSERT INTO staffNotice (kind, recipientId, localDate, eventId, sentAt) VALUES (?, 'ops', ?, '', ?)
                ON CONFLICT DO NOTHING
                """, arguments: [EventType.storageLow.rawValue, day.description, now])
            guard db.changesCount == 1 else { return false }
            let eventId = try Self.recordStaffEvent(
                db, type: .storageLow, occurredAt: now,
                message: StaffMessages.storageLow(freeBytes: storage.freeBytes, totalBytes: storage.totalBytes,
                                                  minimumFreeBytes: storage.minimumFreeBytes),
                link: .operationsStatus,
                extra: .init(storage: storage), recipient: .ops)
            try db.execute(sql: """
                UPDATE staffNotice SET eventId = ? WHERE kind = ? AND recipientId = 'ops' AND localDate = ?
                """, arguments: [eventId, EventType.storageLow.rawValue, day.description])
            return true
        }
    }
}
