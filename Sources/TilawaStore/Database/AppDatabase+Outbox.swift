import Foundation
import GRDB

extension AppDatabase {
    /// The events to send now: for each student, their oldest undelivered event, when it is due.
    ///
    /// A student's later event waits until the earlier one is delivered, even when its own
    /// `nextAttemptAt` has passed, so receivers see one student's events in order; an event
    /// that keeps failing therefore holds back that student's later ones (and no one else's).
    /// At most one event per student is returned, most overdue first.
    ///
    /// - Parameters:
    ///   - now: Events with `nextAttemptAt ≤ now` are due.
    ///   - limit: The most events (students) returned.
    public func dueEvents(now: Date, limit: Int) throws -> [EventRecord] {
        try engine.read(Self.dueEventsQuery(now: now, limit: limit))
    }

    /// `dueEvents` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func dueEvents(now: Date, limit: Int) async throws -> [EventRecord] {
        try await engine.read(Self.dueEventsQuery(now: now, limit: limit))
    }

    /// The transaction of `dueEvents`, shared by its synchronous and async forms.
    static func dueEventsQuery(now: Date, limit: Int) -> @Sendable (SQLSession) throws -> [EventRecord] {
        { db in
            try EventRecord.fetchAll(db, sql: Self.dueEventsSQL, arguments: [now, max(0, limit)])
        }
    }

    /// The heads of the recipients' queues (`queue`: a student, a coach, ops) that are due. The index `event_undelivered`
    /// (deliveredAt, nextAttemptAt) of the first migration keeps the inner query to the
    /// backlog, however many delivered events the table holds.
    static let dueEventsSQL = """
        SELECT event.* FROM event
        JOIN (SELECT queue, MIN(seq) AS headSeq FROM event WHERE deliveredAt IS NULL GROUP BY queue) AS head
          ON event.seq = head.headSeq
        WHERE event.nextAttemptAt <= ?
        ORDER BY event.nextAttemptAt, event.seq
        LIMIT ?
        """

    /// Records that the receiver acknowledged event `seq` (a 2xx) at `now`.
    ///
    /// Counts the successful POST in `attempts` (which therefore says how many POSTs it took)
    /// and clears `lastError`. An event already delivered keeps its first delivery time.
    public func markDelivered(seq: Int64, now: Date) throws {
        try engine.write(Self.markDeliveredQuery(seq: seq, now: now))
    }

    /// `markDelivered` from async code: suspends on GRDB's async write instead of blocking a thread of the cooperative pool.
    public func markDelivered(seq: Int64, now: Date) async throws {
        try await engine.write(Self.markDeliveredQuery(seq: seq, now: now))
    }

    /// The transaction of `markDelivered`, shared by its synchronous and async forms.
    static func markDeliveredQuery(seq: Int64, now: Date) -> @Sendable (SQLSession) throws -> Void {
        { db in
            try db.execute(
                sql: """
                    UPDATE event SET deliveredAt = ?, attempts = attempts + 1, lastError = NULL, sendingBy = NULL, sendingUntil = NULL
                    WHERE seq = ? AND deliveredAt IS NULL
                    """,
                arguments: [now, seq])
            try forgetDeliveredLink(db, seq: seq)
        }
    }

    /// A delivered `desk_link_requested` keeps no live login link: its `url` is removed from
    /// the stored payload (the organisation has it; the outbox, its backups and exports do not).
    static func forgetDeliveredLink(_ db: SQLSession, seq: Int64) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT type, payload FROM event WHERE seq = ?", arguments: [seq]),
              (row["type"] as String?) == EventType.deskLinkRequested.rawValue, let data = row["payload"] as Data?,
              var payload = try? EventPayload.decode(data), payload.extra?.deskLink?.url != nil else { return }
        payload.extra?.deskLink?.url = nil
        try db.execute(sql: "UPDATE event SET payload = ? WHERE seq = ?", arguments: [try payload.jsonData(), seq])
    }

    /// Records a failed delivery of event `seq`: one more attempt, why it failed, and when to retry.
    ///
    /// Does nothing to an event already delivered (by another sender, say), so a late failure
    /// never resurrects it; with `sender`, nothing either while another sender claims it (this
    /// one's claim ran out during its POST): that sender's claim and schedule stand.
    public func markFailed(seq: Int64, error: String, nextAttemptAt: Date, sender: String? = nil) throws {
        try engine.write(Self.markFailedQuery(seq: seq, error: error, nextAttemptAt: nextAttemptAt, sender: sender))
    }

    /// `markFailed` from async code: suspends on GRDB's async write instead of blocking a thread of the cooperative pool.
    public func markFailed(seq: Int64, error: String, nextAttemptAt: Date, sender: String? = nil) async throws {
        try await engine.write(Self.markFailedQuery(seq: seq, error: error, nextAttemptAt: nextAttemptAt, sender: sender))
    }

    /// The transaction of `markFailed`, shared by its synchronous and async forms.
    static func markFailedQuery(seq: Int64, error: String, nextAttemptAt: Date, sender: String?) -> @Sendable (SQLSession) throws -> Void {
        { db in
            try db.execute(
                sql: """
                    UPDATE event SET attempts = attempts + 1, lastError = ?, nextAttemptAt = ?, sendingBy = NULL, sendingUntil = NULL
                    WHERE seq = ? AND deliveredAt IS NULL AND (CAST(? AS text) IS NULL OR sendingBy IS NULL OR sendingBy = ?)
                    """,
                arguments: [error, nextAttemptAt, seq, sender, sender])
        }
    }

    /// The number of undelivered events and the age of the oldest at `now`.
    public func undeliveredSummary(now: Date) throws -> OutboxSummary {
        try engine.read(Self.undeliveredSummaryQuery(now: now))
    }

    /// `undeliveredSummary` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func undeliveredSummary(now: Date) async throws -> OutboxSummary {
        try await engine.read(Self.undeliveredSummaryQuery(now: now))
    }

    /// The transaction of `undeliveredSummary`, shared by its synchronous and async forms.
    static func undeliveredSummaryQuery(now: Date) -> @Sendable (SQLSession) throws -> OutboxSummary {
        { db in
            let row = try Row.fetchOne(db, sql: Self.undeliveredSummarySQL)
            let count: Int = row?["count"] ?? 0
            let oldest: Date? = row?["oldest"]
            return OutboxSummary(count: count, oldestOccurredAt: oldest, oldestAge: oldest.map { max(0, now.timeIntervalSince($0)) })
        }
    }

    /// Reads only the backlog, through `event_undelivered`. An event never tried whose first
    /// attempt was set later than it happened (held for the student's quiet hours,
    /// `holdForQuietHours`) is waiting on purpose: its age counts from when it is due, so a
    /// push held overnight never turns `status` or the outbox metric into a delivery lag.
    static let undeliveredSummarySQL = """
        SELECT COUNT(*) AS count,
               MIN(CASE WHEN attempts = 0 AND nextAttemptAt > occurredAt THEN nextAttemptAt ELSE occurredAt END) AS oldest
        FROM event WHERE deliveredAt IS NULL
        """

    /// How long a sender's claim on an event holds (the wall clock) beyond the POST's own timeout.
    public static let eventClaimMargin: TimeInterval = 30

    /// The migration "events: sending claims": which node is sending an event, until when.
    static func migrateEventClaims(_ db: Database) throws {
        try db.alter(table: "event") { t in
            t.add(column: "sendingBy", .text)
            t.add(column: "sendingUntil", .datetime)
        }
    }

    /// Claims undelivered event `seq` (the head of its recipient's queue) for `sender` until
    /// `until` on the wall clock: false while another sender's claim holds. With several nodes
    /// each sending webhooks, a queue's head is POSTed by one of them at a time, so its events
    /// still arrive in order, and a node that dies mid-POST gives the event up at `until` (it is
    /// sent again, with the same `webhook-id`). `markDelivered` and `markFailed` end the claim.
    public func claimEvent(seq: Int64, sender: String, until: Date, now: Date = Date()) async throws -> Bool {
        try await engine.write { db in
            try db.execute(sql: """
                UPDATE event SET sendingBy = ?, sendingUntil = ?
                WHERE seq = ? AND deliveredAt IS NULL AND (sendingUntil IS NULL OR sendingUntil <= ? OR sendingBy = ?)
                """, arguments: [sender, until, seq, now, sender])
            return db.changesCount == 1
        }
    }

    /// Ends `sender`'s claim on event `seq` without a delivery (it stopped before the POST).
    public func releaseEventClaim(seq: Int64, sender: String) async throws {
        try await engine.write { db in
            try db.execute(sql: "UPDATE event SET sendingBy = NULL, sendingUntil = NULL WHERE seq = ? AND sendingBy = ?",
                           arguments: [seq, sender])
        }
    }
}
