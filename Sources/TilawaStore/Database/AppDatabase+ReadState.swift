import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The migration "notifications: read and listened state": a student's read position in
    /// their feed, and for each reply which bytes its student fetched and when it counted as
    /// listened. Never edited once landed.
    static func migrateReadState(_ db: Database) throws {
        try db.create(table: "eventReadCursor") { t in
            t.primaryKey("studentId", .text)
            t.column("seq", .integer).notNull()
            t.column("updatedAt", .datetime).notNull()
        }
        try db.alter(table: "feedback") { t in
            t.add(column: "fetchedRanges", .jsonText)
            t.add(column: "listenedAt", .datetime)
        }
    }

    /// The migration "notifications: read one by one": an event read by itself. Never edited once landed.
    static func migrateEventReadAt(_ db: Database) throws {
        try db.alter(table: "event") { t in
            t.add(column: "readAt", .datetime)
        }
    }

    /// A student's feed position: the last event read and how many are newer.
    public struct ReadState: Sendable, Equatable {
        /// The `seq` read up to (0: nothing read).
        public var readCursor: Int64
        /// Events newer than it and not read one by one.
        public var unreadCount: Int
    }

    /// Where `studentId` has read up to and how many events are unread.
    public func readState(studentId: String) async throws -> ReadState {
        try await engine.read { db in try Self.readState(db, studentId: studentId) }
    }

    static func readState(_ db: SQLSession, studentId: String) throws -> ReadState {
        let cursor = try Int64.fetchOne(db, sql: "SELECT seq FROM eventReadCursor WHERE studentId = ?", arguments: [studentId]) ?? 0
        let unread = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM event WHERE studentId = ? AND recipient = 'student' AND seq > ? AND readAt IS NULL
            """, arguments: [studentId, cursor]) ?? 0
        return ReadState(readCursor: cursor, unreadCount: unread)
    }

    /// Marks `studentId`'s events read up to `cursor` (never backwards; a cursor past the
    /// newest event stops at it) and answers the new state.
    public func markEventsRead(studentId: String, upTo cursor: Int64, now: Date) async throws -> ReadState {
        try await engine.write { db in
            let newest = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM event WHERE studentId = ? AND recipient = 'student'",
                                            arguments: [studentId]) ?? 0
            let current = try Int64.fetchOne(db, sql: "SELECT seq FROM eventReadCursor WHERE studentId = ?", arguments: [studentId]) ?? 0
            let target = max(current, min(cursor, newest))
            try db.execute(sql: """
                INSERT INTO eventReadCursor (studentId, seq, updatedAt) VALUES (?, ?, ?)
                ON CONFLICT(studentId) DO UPDATE SET seq = excluded.seq, updatedAt = excluded.updatedAt
                """, arguments: [studentId, target, now])
            return try Self.readState(db, studentId: studentId)
        }
    }

    /// Marks one event of `studentId`'s feed read (`eventId`, the `evt_…` id); reading it again
    /// changes nothing. Nil when the student has no such event (another's is none of theirs).
    public func markEventRead(studentId: String, eventId: String, now: Date) async throws -> ReadState? {
        try await engine.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM event WHERE id = ? AND studentId = ? AND recipient = 'student'",
                                    arguments: [eventId, studentId]) == true else { return nil }
            try db.execute(sql: "UPDATE event SET readAt = ? WHERE id = ? AND readAt IS NULL", arguments: [now, eventId])
            return try Self.readState(db, studentId: studentId)
        }
    }

    /// The reply's `feedback_ready` events are read (inside the transaction that makes it listened).
    static func markFeedbackReadyRead(_ db: SQLSession, feedbackId: String, now: Date) throws {
        try db.execute(sql: """
            UPDATE event SET readAt = ?
            WHERE recipient = 'student' AND type = 'feedback_ready' AND readAt IS NULL
              AND studentId = (SELECT submission.studentId FROM feedback JOIN submission ON submission.id = feedback.submissionId
                               WHERE feedback.id = ?)
              AND \(db.jsonText("payload", member: "feedback_id")) = ?
            """, arguments: [now, feedbackId, feedbackId])
    }

    /// A student's notification feed before `cursor` (a `seq`), newest first.
    public func events(studentId: String, before cursor: Int64, limit: Int) async throws -> [EventRecord] {
        try await engine.read { db in
            try EventRecord.fetchAll(db, where: "studentId = ? AND recipient = 'student' AND seq < ?", [studentId, cursor],
                                     orderBy: "seq DESC", limit: limit)
        }
    }

    /// Records that the reply's student fetched `range` of its `size`-byte audio; once they
    /// have fetched 95 % of it in all, the reply is `listened` (at `now`, once). Answers when it was.
    @discardableResult
    public func recordFeedbackFetch(feedbackId: String, range: Range<Int>, size: Int, now: Date) async throws -> Date? {
        try await engine.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT fetchedRanges, listenedAt FROM feedback WHERE id = ?",
                                             arguments: [feedbackId]) else { return nil }
            if let listened: Date = row["listenedAt"] { return listened }
            var coverage = ByteCoverage()
            if let stored: String = row["fetchedRanges"], let data = stored.data(using: .utf8) {
                coverage = (try? JSONDecoder().decode(ByteCoverage.self, from: data)) ?? ByteCoverage()
            }
            coverage.add(range.clamped(to: 0..<max(0, size)))
            let listenedAt: Date? = coverage.isListened(size: size) ? now : nil
            try db.execute(sql: "UPDATE feedback SET fetchedRanges = ?, listenedAt = ? WHERE id = ?",
                           arguments: [String(decoding: try JSONEncoder().encode(coverage), as: UTF8.self), listenedAt, feedbackId])
            if listenedAt != nil { try Self.markFeedbackReadyRead(db, feedbackId: feedbackId, now: now) }
            return listenedAt
        }
    }

    /// Marks a reply listened at `now` (the app says so), unless it already was; answers when.
    public func markFeedbackListened(feedbackId: String, now: Date) async throws -> Date? {
        try await engine.write { db in
            try db.execute(sql: "UPDATE feedback SET listenedAt = ? WHERE id = ? AND listenedAt IS NULL", arguments: [now, feedbackId])
            try Self.markFeedbackReadyRead(db, feedbackId: feedbackId, now: now)
            return try Date.fetchOne(db, sql: "SELECT listenedAt FROM feedback WHERE id = ?", arguments: [feedbackId])
        }
    }
}
