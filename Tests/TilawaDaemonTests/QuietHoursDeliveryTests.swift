import Foundation
import GRDB
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// No push at night (`notifications.quiet_hours`, default 22:00–07:00, in each student's own
/// zone): a student's push waits for the end of their quiet hours, but never a refusal, and
/// never while the student is evidently awake.
@Suite("Quiet hours hold a student's pushes until morning")
struct QuietHoursDeliveryTests {
    /// Sunday 22 November 2026, 20:30 UTC: 23:30 in Dubai, 15:30 in New York.
    static let night = Date(timeIntervalSince1970: 1_795_379_400)

    private func student(_ outbox: OutboxFixture, _ id: String, zone: String?, quiet: String? = nil) throws {
        var record = StudentRecord(id: id, name: "Student \(id)")
        record.timeZone = zone
        record.quietHours = quiet
        try outbox.database.engine.write { db in try record.insert(db) }
    }

    /// A student's event of `type`, pushing, as the daemon records it.
    @discardableResult
    private func event(_ outbox: OutboxFixture, _ student: String, _ type: String, at occurredAt: Date) throws -> EventRecord {
        let id = IdentifierGenerator.make("evt", now: occurredAt)
        var payload = EventPayload(
            id: id, type: type, studentId: student, occurredAt: occurredAt,
            week: .init(number: 12, kind: "week", title: "Title 12", passage: "Passage 12"),
            submissionId: "sub_\(student)_12", feedbackId: nil, coachName: "Ustadha Maryam",
            message: "About week 12.", link: "quranflow://weeks/12")
        payload.push = true
        var event = EventRecord(id: id, studentId: student, type: type, payload: try payload.jsonData(), occurredAt: occurredAt)
        try outbox.database.engine.write { db in try AppDatabase.insertEvent(db, &event) }
        return event
    }

    @Test("a reply at 23:30 in Dubai waits for 07:00 there; New York's afternoon and a student without quiet hours get theirs now; a refusal behind it sends both, in order")
    func heldUntilMorning() async throws {
        let outbox = try OutboxFixture()
        defer { outbox.remove() }
        try student(outbox, "S1001", zone: "Asia/Dubai")
        try student(outbox, "S1002", zone: nil)
        try student(outbox, "S1003", zone: "Asia/Dubai", quiet: "none")
        try student(outbox, "S1004", zone: "Asia/Dubai", quiet: "01:00-06:00")
        let dubai = try event(outbox, "S1001", "feedback_ready", at: Self.night)
        try event(outbox, "S1002", "feedback_ready", at: Self.night)
        try event(outbox, "S1003", "announcement", at: Self.night)
        try event(outbox, "S1004", "question_answered", at: Self.night)
        let receiver = WebhookReceiver()
        var options = fastOptions()
        options.quietHours = NotificationSchedule.standardQuietHours
        options.programmeZone = try #require(TimeZone(identifier: "America/New_York"))
        let wakeup = WakeupSignal()
        try await receiver.serve { url in
            let services = RunningServices([WebhookNotifierService(
                database: outbox.database, endpoint: WebhookEndpoint(url: url, secret: webhookSecret), options: options,
                wakeup: wakeup, metrics: TilawaMetrics(), clock: { Self.night }, logger: quietLogger)])
            #expect(await eventually { Set(receiver.calls.compactMap(\.studentId)) == ["S1002", "S1003", "S1004"] })
            let held = try #require(try outbox.events().first { $0.id == dubai.id })
            #expect(held.deliveredAt == nil && held.attempts == 0)
            // 07:00 in Dubai (UTC+4) is 03:00 UTC on Monday.
            #expect(held.nextAttemptAt == Date(timeIntervalSince1970: 1_795_402_800), "\(held.nextAttemptAt)")
            // Waiting on purpose is no delivery lag: status and the outbox metric see it as not yet due.
            #expect(await eventually { try outbox.events().filter { $0.deliveredAt == nil }.count == 1 }, "the others' deliveries recorded")
            let backlog = try await outbox.database.undeliveredSummary(now: Self.night.addingTimeInterval(3_600))
            #expect(backlog.count == 1 && backlog.oldestAge == 0, "\(backlog)")
            #expect(try await outbox.database.undeliveredSummary(now: held.nextAttemptAt.addingTimeInterval(600)).oldestAge == 600)

            // The student records and is refused: they are awake, and their queue stays in order.
            try event(outbox, "S1001", "submission_refused", at: Self.night)
            wakeup.signal()
            #expect(await eventually { receiver.calls.filter { $0.studentId == "S1001" }.count == 2 })
            #expect(receiver.calls.filter { $0.studentId == "S1001" }.map(\.eventType) == ["feedback_ready", "submission_refused"])
            try await services.stop()
        }
    }
}
