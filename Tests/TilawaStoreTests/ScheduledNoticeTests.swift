import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Scheduled notifications: week unlocked and deadline reminders, each exactly once")
struct ScheduledNoticeTests {
    static let fall = try! SemesterCalendar(start: LocalDate(year: 2026, month: 9, day: 5), timeZoneIdentifier: "America/New_York")

    func payloads(_ store: TestStore, _ student: String) throws -> [EventPayload] {
        try store.database.engine.read { db in
            try EventRecord.fetchAll(db, where: "studentId = ?", [student], orderBy: "seq")
        }.map { try JSONDecoder.iso.decode(EventPayload.self, from: $0.payload) }
    }

    @Test("a whole semester, ticked hourly: one who submits every week, one who falls behind, one who never submits", arguments: TestEngine.all)
    func wholeSemester(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002", "S1003"])
        defer { store.remove() }
        let policy = ProgramPolicy()
        var tick = Self.fall.unlock(week: 1)
        let end = Self.fall.deadline(week: 15).addingTimeInterval(3_600)
        // The daemon is down from Wednesday 16:00 to Thursday 10:00 of week 5, over the
        // Wednesday reminder: that one goes out late, once.
        let downFrom = Self.fall.deadline(week: 5).addingTimeInterval(-(2 * 86_400 + 8 * 3_600) + 1)
        let downUntil = downFrom.addingTimeInterval(18 * 3_600)
        var submittedWeek = Set<Int>()
        while tick <= end {
            if let week = Self.fall.currentWeek(at: tick), !submittedWeek.contains(week),
               tick >= Self.fall.unlock(week: week).addingTimeInterval(12 * 3_600) {
                // S1001 records each week on its Saturday at noon; S1002 only weeks 1 and 2.
                _ = try store.database.admitSubmission(store.request("S1001", .week(week), at: tick), policy: policy)
                if week <= 2 { _ = try store.database.admitSubmission(store.request("S1002", .week(week), at: tick), policy: policy) }
                submittedWeek.insert(week)
            }
            if !(downFrom..<downUntil).contains(tick) {
                try await store.database.recordScheduledNotices(policy: policy, now: tick)
                // A second writer (or a restart within the minute) at the same instant sends nothing more.
                #expect(try await store.database.recordScheduledNotices(policy: policy, now: tick) == 0)
            }
            tick = tick.addingTimeInterval(3_600)
        }

        func notices(_ student: String) throws -> [(type: String, week: Int)] {
            try payloads(store, student).filter { $0.type == "week_unlocked" || $0.type == "deadline_reminder" }
                .map { ($0.type, $0.week?.number ?? 0) }
        }
        for student in ["S1001", "S1002", "S1003"] {
            let list = try notices(student)
            #expect(list.filter { $0.type == "week_unlocked" }.map(\.week) == Array(1...15), "\(student): every week once, in order")
            #expect(list.map(\.week) == list.map(\.week).sorted(), "\(student): in order")
        }
        #expect(try notices("S1001").filter { $0.type == "deadline_reminder" }.isEmpty, "never reminded of a week already in")
        #expect(try notices("S1002").filter { $0.type == "deadline_reminder" }.map(\.week) == (3...15).flatMap { [$0, $0] })
        #expect(try notices("S1003").filter { $0.type == "deadline_reminder" }.map(\.week) == (1...15).flatMap { [$0, $0] })

        let week9 = try #require(try payloads(store, "S1003").first { $0.type == "week_unlocked" && $0.week?.number == 9 })
        #expect(week9.message == "Week 9 is here! Your new lesson is ready: Title 9 (Passage 9), due Friday 6 November, 23:59 EST.")
        #expect(week9.link == "quranflow://weeks/9" && week9.recipient == "student")
        let reminders9 = try payloads(store, "S1003").filter { $0.type == "deadline_reminder" && $0.week?.number == 9 }
        #expect(reminders9.map(\.message) == [
            "Week 9 (Title 9) is due in 2 days, Friday 6 November, 23:59 EST, and nothing is submitted for it yet.",
            "Week 9 (Title 9) is due tomorrow, Friday 6 November, 23:59 EST, and nothing is submitted for it yet.",
        ])
        // The Wednesday reminder of week 5, due while the daemon was down, went out when it came back.
        let late = try #require(try payloads(store, "S1003").first { $0.type == "deadline_reminder" && $0.week?.number == 5 })
        #expect(late.occurredAt == downUntil)
        #expect(late.message.contains("is due tomorrow,"), "sent on Thursday, it says what is left")
        #expect(try store.expectMessagesRenderFromKeys().isSuperset(of: ["week_unlocked", "deadline_reminder", "submission_received.week"]))
    }

    @Test("a notice is never sent after its week's deadline, and an unplaced student gets none", arguments: TestEngine.all)
    func stale(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        try await store.database.engine.write { db in
            try StudentRecord(id: "S2001", name: "Unplaced").insert(db)
            var pending = EnrolmentRecord(studentId: "S2001", semesterId: "fall-2026", levelId: nil, coachId: nil, createdAt: Date())
            try pending.insert(db)
        }
        // The daemon comes back on Saturday of week 6 at 08:00: week 5's notices are stale; week
        // 6's unlock (Saturday 00:00, moved out of the default quiet hours to 07:00) is due.
        let saturday = Self.fall.unlock(week: 6).addingTimeInterval(8 * 3_600)
        #expect(try await store.database.recordScheduledNotices(policy: ProgramPolicy(), now: saturday) == 1)
        let list = try payloads(store, "S1001").filter { $0.type == "week_unlocked" || $0.type == "deadline_reminder" }
        #expect(list.map(\.week?.number) == [6])
        #expect(try payloads(store, "S2001").isEmpty)
        // After the semester's last deadline nothing is due.
        #expect(try await store.database.recordScheduledNotices(policy: ProgramPolicy(), now: Self.fall.deadline(week: 15).addingTimeInterval(60)) == 0)
    }
}

@Suite("Coaches: a student falling behind, once per streak")
struct FallingBehindTests {
    static let fall = ScheduledNoticeTests.fall

    func coachEvents(_ store: TestStore) async throws -> [EventPayload] {
        try await store.database.coachEvents(coachId: "C01", after: 0, limit: 100)
            .filter { $0.type == "student_falling_behind" }
            .map { try JSONDecoder.iso.decode(EventPayload.self, from: $0.payload) }
    }

    @Test("nothing in by the end of week 2; two missed deadlines in a row; caught up, then missed again is a new streak", arguments: TestEngine.all)
    func streaks(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002"])
        defer { store.remove() }
        let policy = ProgramPolicy()
        func submit(_ student: String, _ week: Int, at: Date) throws {
            #expect(try store.database.admitSubmission(store.request(student, .week(week), at: at), policy: policy).submission != nil)
        }
        try submit("S1002", 1, at: Self.fall.unlock(week: 1).addingTimeInterval(3_600))
        try submit("S1002", 2, at: Self.fall.unlock(week: 2).addingTimeInterval(3_600))
        let afterWeek2 = Self.fall.deadline(week: 2).addingTimeInterval(3_600)
        #expect(try await store.database.recordFallingBehind(now: afterWeek2) == 1)
        #expect(try await store.database.recordFallingBehind(now: afterWeek2.addingTimeInterval(60)) == 0)
        var events = try await coachEvents(store)
        #expect(events.map(\.studentId) == ["S1001"])
        #expect(events.first?.message == "Student S1001 has nothing in after 2 weeks — a call from you now is what brings new students back.")
        #expect(events.first?.recipient == "coach")
        // S1001's streak goes on: no second call for it.
        #expect(try await store.database.recordFallingBehind(now: Self.fall.deadline(week: 3).addingTimeInterval(3_600)) == 0)

        // S1002 misses weeks 3 and 4.
        let afterWeek4 = Self.fall.deadline(week: 4).addingTimeInterval(3_600)
        #expect(try await store.database.recordFallingBehind(now: afterWeek4) == 1)
        events = try await coachEvents(store)
        #expect(events.last?.message == "Student S1002 has missed 2 deadlines in a row (weeks 3–4) — a call from you may bring them back.")
        // Caught up on 3 and 4, then on 5 (a week later: two attempts a week); then 6 and 7 go
        // by: a new streak, a new call.
        try submit("S1002", 3, at: afterWeek4)
        try submit("S1002", 4, at: afterWeek4.addingTimeInterval(60))
        try submit("S1002", 5, at: afterWeek4.addingTimeInterval(7 * 86_400 + 120))
        #expect(try await store.database.recordFallingBehind(now: Self.fall.deadline(week: 6).addingTimeInterval(3_600)) == 0)
        #expect(try await store.database.recordFallingBehind(now: Self.fall.deadline(week: 7).addingTimeInterval(3_600)) == 1)
        events = try await coachEvents(store)
        #expect(events.map(\.studentId) == ["S1001", "S1002", "S1002"])
        #expect(events.last?.message.contains("(weeks 6–7)") == true)
    }
}
