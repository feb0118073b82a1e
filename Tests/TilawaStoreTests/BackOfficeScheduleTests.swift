import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// The calendar's notices read the back office's overrides (DESIGN §11): an extension moves a
/// week's reminders to the days before its new deadline; a paused enrolment gets nothing
/// while paused, and owes no week whose deadline fell in the pause.
@Suite("Back office and the calendar: reminders follow an extension, a pause silences and excuses")
struct BackOfficeScheduleTests {
    static let fall = ScheduledNoticeTests.fall
    static let newYork = TimeZone(identifier: "America/New_York")!

    func notices(_ store: TestStore, _ student: String) throws -> [EventPayload] {
        try store.database.engine.read { db in
            try EventRecord.fetchAll(db, where: "studentId = ?", [student], orderBy: "seq")
        }.map { try JSONDecoder.iso.decode(EventPayload.self, from: $0.payload) }
            .filter { $0.type == "week_unlocked" || $0.type == "deadline_reminder" }
    }

    func localDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.newYork
        let parts = calendar.dateComponents([.month, .day, .hour], from: date)
        return "\(parts.month ?? 0)-\(parts.day ?? 0) \(parts.hour ?? 0)h"
    }

    @Test("weeks 5 to 8 ticked hourly: S1001's week 5 extended to Tuesday, S1002 paused for two weeks", arguments: TestEngine.all)
    func remindersFollowOverrides(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002"])
        defer { store.remove() }
        let policy = ProgramPolicy()
        // Monday of week 5, 09:00 in New York.
        let monday = Self.fall.unlock(week: 5).addingTimeInterval(2 * 86_400 + 13 * 3_600)
        let tuesdayOfWeek6 = try #require(ISO8601DateFormatter().date(from: "2026-10-13T23:59:00-04:00"))
        var tick = Self.fall.unlock(week: 5)
        let resumeAt = monday.addingTimeInterval(14 * 86_400)
        while tick < Self.fall.unlock(week: 9) {
            if tick == monday {
                let extended = try store.database.applyNow(.extend(studentId: "S1001", slot: .week(5), dueAt: tuesdayOfWeek6),
                                                           by: "amina", reason: "Ill", policy: policy, now: tick)
                #expect((try? extended.get()) != nil)
                let paused = try store.database.applyNow(.changeEnrolment(studentId: "S1002", coachId: nil, levelId: nil, state: .paused),
                                                         by: "amina", reason: "Travelling", policy: policy, now: tick)
                #expect((try? paused.get()) != nil)
            }
            if tick == resumeAt {
                let resumed = try store.database.applyNow(.changeEnrolment(studentId: "S1002", coachId: nil, levelId: nil, state: .active),
                                                          by: "amina", reason: "Back", policy: policy, now: tick)
                #expect((try? resumed.get()) != nil)
            }
            try await store.database.recordScheduledNotices(policy: policy, now: tick)
            tick = tick.addingTimeInterval(3_600)
        }

        let s1001 = try notices(store, "S1001")
        let week5 = s1001.filter { $0.type == "deadline_reminder" && $0.week?.number == 5 }
        #expect(week5.map { localDay($0.occurredAt) } == ["10-11 18h", "10-12 18h"], "Sunday and Monday before Tuesday's deadline")
        #expect(week5.allSatisfy { $0.message.contains("Tuesday 13 October, 23:59 EDT") }, "\(week5.map(\.message))")
        #expect(s1001.filter { $0.type == "deadline_reminder" && $0.week?.number == 6 }.map { localDay($0.occurredAt) } == ["10-14 18h", "10-15 18h"])
        #expect(s1001.filter { $0.type == "week_unlocked" }.map { $0.week?.number } == [5, 6, 7, 8])

        // S1002: week 5's unlock before the pause; nothing in the pause; on resuming, the week that
        // runs (its unlock, late, as after a daemon's downtime) and its reminders, then week 8.
        let s1002 = try notices(store, "S1002").map { "\($0.type) \($0.week?.number ?? 0)" }
        #expect(s1002 == ["week_unlocked 5", "week_unlocked 7", "deadline_reminder 7", "deadline_reminder 7", "week_unlocked 8",
                          "deadline_reminder 8", "deadline_reminder 8"], "\(s1002)")
        let timeline = try #require(try await store.database.timeline(studentId: "S1002", policy: policy, now: tick))
        #expect(timeline.rules.overrides.excusedWeeks == [5, 6], "weeks 5 and 6 fell due in the pause")
        // Behind: weeks 1–4 and 7–8 (nothing recorded), not 5 and 6.
        #expect(timeline.rules.behindCount(history: timeline.history, now: tick) == 6)
        #expect(try await store.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit") } == 3)
    }
}
