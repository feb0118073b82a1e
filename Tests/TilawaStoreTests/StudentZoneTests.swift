import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("A time zone of one's own: reminders at the student's hour, in the student's days, exactly once")
struct StudentZoneTests {
    static let fall = ScheduledNoticeTests.fall

    func payloads(_ store: TestStore, _ student: String, _ type: String) throws -> [EventPayload] {
        try store.database.engine.read { db in
            try EventRecord.fetchAll(db, where: "studentId = ? AND type = ?", [student, type], orderBy: "seq")
        }.map { try JSONDecoder.iso.decode(EventPayload.self, from: $0.payload) }
    }

    func setZone(_ store: TestStore, _ student: String, _ zone: String?) async throws {
        _ = try await store.database.updatePreferences(studentId: student, change: PreferencesChange(timeZone: .some(zone)), by: "student",
                                                       now: Self.fall.unlock(week: 1))
    }

    /// Local "weekday HH:MM" of `instant` in `zone`.
    func local(_ instant: Date, _ zone: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: instant)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return "\(days[parts.weekday! - 1]) \(parts.hour! < 10 ? "0" : "")\(parts.hour!):\(parts.minute! < 10 ? "0" : "")\(parts.minute!)"
    }

    /// Ticks every 5 minutes from `from` to `to`, as the daemon's minute tick would (coarser, for speed).
    func tick(_ store: TestStore, from: Date, to: Date, policy: ProgramPolicy = ProgramPolicy(),
              at hook: (Date) async throws -> Void = { _ in }) async throws {
        var now = from
        while now <= to {
            try await hook(now)
            try await store.database.recordScheduledNotices(policy: policy, now: now)
            now = now.addingTimeInterval(300)
        }
    }

    @Test("New York, Dubai and Jakarta: 18:00 local on the two days before the deadline as each counts them; the deadline written in their zone", arguments: TestEngine.all)
    func threeZones(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002", "S1003"])
        defer { store.remove() }
        try await setZone(store, "S1002", "Asia/Dubai")
        try await setZone(store, "S1003", "Asia/Jakarta")
        try await tick(store, from: Self.fall.unlock(week: 3), to: Self.fall.deadline(week: 3))
        let newYork = try payloads(store, "S1001", "deadline_reminder")
        let dubai = try payloads(store, "S1002", "deadline_reminder")
        let jakarta = try payloads(store, "S1003", "deadline_reminder")
        // Week 3 is due Friday 25 September 23:59 EDT = Saturday 07:59 in Dubai, 10:59 in Jakarta.
        #expect(newYork.map { local($0.occurredAt, "America/New_York") } == ["Wed 18:00", "Thu 18:00"])
        #expect(dubai.map { local($0.occurredAt, "Asia/Dubai") } == ["Thu 18:00", "Fri 18:00"])
        #expect(jakarta.map { local($0.occurredAt, "Asia/Jakarta") } == ["Thu 18:00", "Fri 18:00"])
        #expect(jakarta.last?.message == "Week 3 (Title 3) is due tomorrow, Saturday 26 September, 10:59 WIB, and nothing is submitted for it yet.")
        #expect(newYork.last?.message == "Week 3 (Title 3) is due tomorrow, Friday 25 September, 23:59 EDT, and nothing is submitted for it yet.")
        #expect(dubai.first?.message.contains("Saturday 26 September, 07:59") == true)
        // The week's unlock is the programme's instant for everyone, written in each one's zone.
        let unlocked = try payloads(store, "S1003", "week_unlocked")
        #expect(unlocked.map(\.occurredAt) == [Self.fall.unlock(week: 3)])
        #expect(unlocked.first?.message.hasSuffix("due Saturday 26 September, 10:59 WIB.") == true)
    }

    @Test("quiet hours are the student's: a reminder that would fall in them moves to their end, before the deadline", arguments: TestEngine.all)
    func quietHours(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002"])
        defer { store.remove() }
        try await setZone(store, "S1002", "Asia/Jakarta")
        var policy = ProgramPolicy()
        // Reminders at 06:00 local, quiet 21:00–08:00: moved to 08:00, in each one's zone.
        policy.notificationSchedule = NotificationSchedule(
            reminders: [.init(daysBefore: 1, at: LocalTime(hour: 6, minute: 0)!)],
            quietHours: .init(start: LocalTime(hour: 21, minute: 0)!, end: LocalTime(hour: 8, minute: 0)!))
        try await tick(store, from: Self.fall.unlock(week: 4), to: Self.fall.deadline(week: 4), policy: policy)
        #expect(try payloads(store, "S1001", "deadline_reminder").map { local($0.occurredAt, "America/New_York") } == ["Thu 08:00"])
        #expect(try payloads(store, "S1002", "deadline_reminder").map { local($0.occurredAt, "Asia/Jakarta") } == ["Fri 08:00"])
        // Week 4 unlocks Saturday 00:00 New York = 11:00 in Jakarta (outside quiet hours), but
        // 00:00 is inside New York's: the New Yorker hears of it at 08:00.
        #expect(try payloads(store, "S1001", "week_unlocked").map { local($0.occurredAt, "America/New_York") } == ["Sat 08:00"])
        #expect(try payloads(store, "S1002", "week_unlocked").map { local($0.occurredAt, "Asia/Jakarta") } == ["Sat 11:00"])
    }

    @Test("a reminder whose local hour would come after the deadline is never sent after it")
    func neverAfterTheDeadline() {
        // Honolulu: the deadline is Friday 17:59 HST; a same-day reminder at 20:00 would be late.
        let schedule = NotificationSchedule(reminders: [.init(daysBefore: 0, at: LocalTime(hour: 20, minute: 0)!),
                                                        .init(daysBefore: 0, at: LocalTime(hour: 9, minute: 0)!)], quietHours: nil)
        let notices = schedule.notices(week: 3, calendar: Self.fall, in: TimeZone(identifier: "Pacific/Honolulu")!)
            .filter { $0.kind == .deadlineReminder }
        #expect(notices.map { local($0.dueAt, "Pacific/Honolulu") } == ["Fri 09:00"])
        #expect(notices.allSatisfy { $0.dueAt < $0.expiresAt })
    }

    @Test("a student who moves from New York to Dubai on Wednesday evening gets the next reminder once, at Dubai's hour", arguments: TestEngine.all)
    func moveMidWeek(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        // Wednesday 23 September 20:00 New York: the Wednesday reminder went out at 18:00.
        let moves = TestStore.newYork(2026, 9, 23, 20)
        try await tick(store, from: Self.fall.unlock(week: 3), to: Self.fall.deadline(week: 3)) { now in
            if now == moves { try await setZone(store, "S1001", "Asia/Dubai") }
        }
        let reminders = try payloads(store, "S1001", "deadline_reminder")
        #expect(reminders.count == 2, "two reminders in all, none twice")
        #expect(reminders.first.map { local($0.occurredAt, "America/New_York") } == "Wed 18:00")
        // Dubai's two days before a Saturday-morning deadline are Thursday and Friday: Thursday's
        // (2 days before) was sent already, as Wednesday's in New York; Friday's comes at 18:00 there.
        #expect(reminders.last.map { local($0.occurredAt, "Asia/Dubai") } == "Fri 18:00")
        #expect(reminders.last?.message.contains("is due tomorrow, Saturday 26 September, 07:59") == true)
        // Ticking over the same span again sends nothing.
        try await tick(store, from: Self.fall.unlock(week: 3), to: Self.fall.deadline(week: 3))
        #expect(try payloads(store, "S1001", "deadline_reminder").count == 2)
    }

    @Test("a category turned off pushes nothing from then on; what was written keeps its push; refusals always push", arguments: TestEngine.all)
    func pushCategories(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        // Week 1's unlock, at 07:00 (out of the default quiet hours).
        try await tick(store, from: Self.fall.unlock(week: 1), to: Self.fall.unlock(week: 1).addingTimeInterval(8 * 3_600))
        _ = try await store.database.updatePreferences(studentId: "S1001", change: PreferencesChange(push: [.deadlines: false]), by: "student",
                                                       now: Self.fall.unlock(week: 1))
        try await tick(store, from: Self.fall.unlock(week: 2), to: Self.fall.deadline(week: 2))
        let unlocked = try payloads(store, "S1001", "week_unlocked")
        #expect(unlocked.map(\.push) == [true, false], "week 1's stays as written; week 2's is not pushed")
        #expect(try payloads(store, "S1001", "deadline_reminder").map(\.push) == [false, false], "still in the feed, silently")
        let preferences = try #require(try await store.database.preferences(studentId: "S1001", now: Self.fall.unlock(week: 2)))
        #expect(preferences.push == [.feedback: true, .deadlines: false, .announcements: true, .questions: true])
        #expect(preferences.timeZone == "America/New_York" && preferences.timeZoneSource == "programme")
        #expect(EventType.submissionFailed.pushCategory == nil, "a lost recording is always heard of")
        #expect(EventType.feedbackReady.pushCategory == .feedback && EventType.questionAnswered.pushCategory == .questions)
    }

    @Test("students.csv time_zone: imported, an empty cell keeps it, and it never overwrites the student's own choice", arguments: TestEngine.all)
    func rosterZone(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002"])
        defer { store.remove() }
        func row(_ student: String, _ zone: String?) -> StudentRow {
            StudentRow(line: 2, id: Identifier(rawValue: student)!, name: "Student \(student)", level: "L1",
                       coachID: Identifier(rawValue: "C01")!, semesterID: Identifier(rawValue: "fall-2026")!, timeZone: zone)
        }
        func zone(_ student: String) async throws -> (String, String)? {
            try await store.database.preferences(studentId: student, now: Self.fall.unlock(week: 2)).map { ($0.timeZone, $0.timeZoneSource) }
        }
        let now = Self.fall.unlock(week: 2)
        _ = try store.database.importRoster(program: nil, students: [row("S1001", "Asia/Dubai"), row("S1002", "Asia/Dubai")], studentsSource: "s.csv", now: now)
        #expect(try await zone("S1001")! == ("Asia/Dubai", "roster"))
        _ = try store.database.importRoster(program: nil, students: [row("S1001", nil)], studentsSource: "s.csv", now: now)
        #expect(try await zone("S1001")! == ("Asia/Dubai", "roster"), "an empty cell keeps it")
        try await setZone(store, "S1002", "Asia/Jakarta")
        _ = try store.database.importRoster(program: nil, students: [row("S1001", "Europe/London"), row("S1002", "Europe/London")],
                                            studentsSource: "s.csv", now: now)
        #expect(try await zone("S1001")! == ("Europe/London", "roster"), "the roster may change its own")
        #expect(try await zone("S1002")! == ("Asia/Jakarta", "student"), "never the student's")
        // Cleared by the student, the choice goes back to the roster.
        try await setZone(store, "S1002", nil)
        #expect(try await zone("S1002")! == ("America/New_York", "programme"))
    }

    @Test("students.csv: a zone that is not IANA names its line; two rows of one student that disagree name both lines")
    func rosterRefusals() throws {
        let header = "student_id,name,level,coach_id,semester_id,time_zone,gender\n"
        #expect {
            _ = try StudentsCSV.parse(header + "S1,A,L1,C01,fall-2026,EST,\n", source: "s.csv")
        } throws: { error in
            guard let error = error as? RosterError else { return false }
            return error.code == .invalidTimeZone && error.message.contains("line 2") && error.message.contains("\"EST\"")
        }
        let rows = try StudentsCSV.parse(header + "S1,A,L1,C01,fall-2026,Asia/Dubai,female\nS1,A,L1,C01,spring-2027,,female\nS1,A,L1,C01,fall-2027,Asia/Jakarta,\n",
                                         source: "s.csv")
        #expect(rows.map(\.timeZone) == ["Asia/Dubai", nil, "Asia/Jakarta"])
        #expect {
            try RosterValidator.validate(students: rows, coaches: ["C01"], levels: ["L1"], semesters: ["fall-2026", "spring-2027", "fall-2027"],
                                         source: "s.csv")
        } throws: { error in
            guard let error = error as? RosterError else { return false }
            return error.code == .conflictingRows && error.message.contains("line 2") && error.message.contains("line 4")
                && error.message.contains("time_zone")
        }
        // Agreeing rows (or one empty) are fine.
        #expect(throws: Never.self) {
            try RosterValidator.validate(students: Array(rows.prefix(2)), coaches: ["C01"], levels: ["L1"], semesters: ["fall-2026", "spring-2027"],
                                         source: "s.csv")
        }
    }
}
