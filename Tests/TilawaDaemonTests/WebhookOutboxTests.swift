import Foundation
import GRDB
import Testing
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore

@Suite("Webhook outbox: due events one per student in order, delivery and failure marks, backlog")
struct WebhookOutboxTests {
    private let start = Date(timeIntervalSince1970: 1_795_359_600)

    @Test("Only each student's oldest undelivered event is due; a later one waits even when its own time has come")
    func oldestPerStudent() throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let a1 = try outbox.addEvent(student: "S1001", week: 1, at: start)
        let a2 = try outbox.addEvent(student: "S1001", week: 2, at: start.addingTimeInterval(1))
        let b1 = try outbox.addEvent(student: "S1002", week: 1, at: start.addingTimeInterval(2))
        let b2 = try outbox.addEvent(student: "S1002", week: 2, at: start.addingTimeInterval(3))
        let db = outbox.database
        let now = start.addingTimeInterval(10)

        #expect(try db.dueEvents(now: now, limit: 10).map(\.id) == [a1.id, b1.id])
        #expect(try db.dueEvents(now: start.addingTimeInterval(1.5), limit: 10).map(\.id) == [a1.id], "b1 not yet due")
        #expect(try db.dueEvents(now: now, limit: 1).map(\.id) == [a1.id])

        // b1 fails and waits a minute: b2, due since long, still waits behind it.
        try db.markFailed(seq: try #require(b1.seq), error: "HTTP 500", nextAttemptAt: now.addingTimeInterval(60))
        #expect(try db.dueEvents(now: now, limit: 10).map(\.id) == [a1.id])
        #expect(try db.dueEvents(now: now.addingTimeInterval(60), limit: 10).map(\.id) == [a1.id, b1.id])

        try db.markDelivered(seq: try #require(a1.seq), now: now)
        #expect(try db.dueEvents(now: now, limit: 10).map(\.id) == [a2.id])
        try db.markDelivered(seq: try #require(a2.seq), now: now)
        try db.markDelivered(seq: try #require(b1.seq), now: now.addingTimeInterval(61))
        #expect(try db.dueEvents(now: now, limit: 10).map(\.id) == [b2.id])
        try db.markDelivered(seq: try #require(b2.seq), now: now)
        #expect(try db.dueEvents(now: now.addingTimeInterval(86_400), limit: 10).isEmpty)
    }

    @Test("The most overdue student goes first")
    func mostOverdueFirst() throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let early = try outbox.addEvent(student: "S1001", week: 1, at: start)
        let later = try outbox.addEvent(student: "S1002", week: 1, at: start.addingTimeInterval(1))
        try outbox.database.markFailed(seq: try #require(early.seq), error: "timeout", nextAttemptAt: start.addingTimeInterval(5))
        #expect(try outbox.database.dueEvents(now: start.addingTimeInterval(10), limit: 10).map(\.id) == [later.id, early.id])
    }

    @Test("markFailed counts the attempt and keeps why; markDelivered counts the POST, clears the error and sticks")
    func marks() throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let event = try outbox.addEvent(student: "S1001", week: 3, at: start)
        let seq = try #require(event.seq)
        let db = outbox.database
        try db.markFailed(seq: seq, error: "HTTP 503: busy", nextAttemptAt: start.addingTimeInterval(5))
        try db.markFailed(seq: seq, error: "no answer within 10.0 s", nextAttemptAt: start.addingTimeInterval(35))
        var stored = try #require(try outbox.events().first)
        #expect(stored.attempts == 2)
        #expect(stored.lastError == "no answer within 10.0 s")
        #expect(stored.nextAttemptAt == start.addingTimeInterval(35))
        #expect(stored.deliveredAt == nil)
        #expect(stored.payload == event.payload)

        try db.markDelivered(seq: seq, now: start.addingTimeInterval(40))
        stored = try #require(try outbox.events().first)
        #expect(stored.attempts == 3)
        #expect(stored.lastError == nil)
        #expect(stored.deliveredAt == start.addingTimeInterval(40))

        // A late failure report or a second delivery changes nothing.
        try db.markFailed(seq: seq, error: "late", nextAttemptAt: start.addingTimeInterval(99))
        try db.markDelivered(seq: seq, now: start.addingTimeInterval(99))
        #expect(try outbox.events().first == stored)
    }

    @Test("The backlog summary counts undelivered events and ages the oldest")
    func summary() throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let db = outbox.database
        #expect(try db.undeliveredSummary(now: start) == OutboxSummary(count: 0, oldestOccurredAt: nil, oldestAge: nil))
        let first = try outbox.addEvent(student: "S1001", week: 1, at: start)
        try outbox.addEvent(student: "S1002", week: 1, at: start.addingTimeInterval(30))
        try outbox.addEvent(student: "S1002", week: 2, at: start.addingTimeInterval(60))
        var summary = try db.undeliveredSummary(now: start.addingTimeInterval(100))
        #expect(summary.count == 3)
        #expect(summary.oldestOccurredAt == start)
        #expect(summary.oldestAge == 100)
        try db.markDelivered(seq: try #require(first.seq), now: start)
        summary = try db.undeliveredSummary(now: start.addingTimeInterval(100))
        #expect(summary.count == 2)
        #expect(summary.oldestAge == 70)
        #expect(try db.undeliveredSummary(now: start).oldestAge == 0, "never negative")
    }

    @Test("The outbox queries read the backlog through an index, never the whole table", arguments: [
        AppDatabase.dueEventsSQL, AppDatabase.undeliveredSummarySQL,
    ])
    func readsOnlyTheBacklog(sql: String) throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        let plan = try outbox.database.engine.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: sql.contains("?") ? [Date(), 10] : [])
                .map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.hasPrefix("SEARCH event USING") && $0.contains("deliveredAt=?") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN event") }, "\(plan)")
    }
}
