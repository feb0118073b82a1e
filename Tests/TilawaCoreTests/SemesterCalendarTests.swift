import Foundation
import Testing
@testable import TilawaCore

@Suite("SemesterCalendar")
struct SemesterCalendarTests {
    // Expected instants are written by hand from the New York offsets:
    // EST = UTC−5 until 2026-03-08 and from 2026-11-01, EDT = UTC−4 between.
    @Test("spring semester unlocks across the March DST start", arguments: [
        (1, "2026-01-10T05:00:00Z"), (2, "2026-01-17T05:00:00Z"), (8, "2026-02-28T05:00:00Z"),
        (9, "2026-03-07T05:00:00Z"), (10, "2026-03-14T04:00:00Z"), (11, "2026-03-21T04:00:00Z"),
        (15, "2026-04-18T04:00:00Z"), (16, "2026-04-25T04:00:00Z"),
    ])
    func springUnlocks(_ week: Int, _ expected: String) throws {
        #expect(utcText(try springSemester().unlock(week: week)) == expected)
    }

    @Test("spring semester deadlines", arguments: [
        (1, "2026-01-17T04:59:59Z"), (8, "2026-03-07T04:59:59Z"),
        (9, "2026-03-14T03:59:59Z"), (10, "2026-03-21T03:59:59Z"), (15, "2026-04-25T03:59:59Z"),
    ])
    func springDeadlines(_ week: Int, _ expected: String) throws {
        #expect(utcText(try springSemester().deadline(week: week)) == expected)
    }

    @Test("autumn semester unlocks across the November DST end", arguments: [
        (1, "2026-09-05T04:00:00Z"), (8, "2026-10-24T04:00:00Z"), (9, "2026-10-31T04:00:00Z"),
        (10, "2026-11-07T05:00:00Z"), (15, "2026-12-12T05:00:00Z"), (16, "2026-12-19T05:00:00Z"),
    ])
    func autumnUnlocks(_ week: Int, _ expected: String) throws {
        #expect(utcText(try autumnSemester().unlock(week: week)) == expected)
    }

    @Test("autumn semester deadlines", arguments: [
        (8, "2026-10-31T03:59:59Z"), (9, "2026-11-07T04:59:59Z"), (15, "2026-12-19T04:59:59Z"),
    ])
    func autumnDeadlines(_ week: Int, _ expected: String) throws {
        #expect(utcText(try autumnSemester().deadline(week: week)) == expected)
    }

    @Test("every unlock is local Saturday 00:00:00 and every deadline local Friday 23:59:59", arguments: [true, false])
    func localWallClock(spring: Bool) throws {
        let calendar = try spring ? springSemester() : autumnSemester()
        for week in 1...15 {
            let unlock = newYorkParts(calendar.unlock(week: week))
            #expect([unlock.weekday, unlock.hour, unlock.minute, unlock.second] == [7, 0, 0, 0], "week \(week) unlock")
            let deadline = newYorkParts(calendar.deadline(week: week))
            #expect([deadline.weekday, deadline.hour, deadline.minute, deadline.second] == [6, 23, 59, 59], "week \(week) deadline")
        }
    }

    @Test("the week containing a DST change is an hour shorter or longer in absolute time")
    func dstWeekLength() throws {
        let spring = try springSemester()
        #expect(spring.unlock(week: 10).timeIntervalSince(spring.unlock(week: 9)) == week - 3600)
        #expect(spring.unlock(week: 9).timeIntervalSince(spring.unlock(week: 8)) == week)
        let autumn = try autumnSemester()
        #expect(autumn.unlock(week: 10).timeIntervalSince(autumn.unlock(week: 9)) == week + 3600)
    }

    @Test("closesAt is unlock(15) + 7 days + grace days, local midnight")
    func closesAt() throws {
        #expect(utcText(try springSemester().closesAt) == "2026-05-09T04:00:00Z")
        #expect(utcText(try autumnSemester().closesAt) == "2027-01-02T05:00:00Z")
        #expect(utcText(try springSemester(grace: 0).closesAt) == "2026-04-25T04:00:00Z")
        #expect(utcText(try springSemester(grace: 1).closesAt) == "2026-04-26T04:00:00Z")
    }

    @Test("phase boundaries", arguments: [
        ("2025-12-31T12:00:00Z", SemesterPhase.preSemester),
        ("2026-01-10T04:59:59Z", .preSemester),
        ("2026-01-10T05:00:00Z", .active),
        ("2026-03-10T12:00:00Z", .active),
        ("2026-04-25T03:59:59Z", .active),
        ("2026-04-25T03:59:59.999Z", .active),
        ("2026-04-25T04:00:00Z", .eoc),
        ("2026-05-09T03:59:59Z", .eoc),
        ("2026-05-09T04:00:00Z", .closed),
        ("2027-01-01T00:00:00Z", .closed),
    ])
    func phase(_ instant: String, _ expected: SemesterPhase) throws {
        #expect(try springSemester().phase(at: utc(instant)) == expected)
    }

    @Test("with no grace days the eoc phase is empty")
    func noGrace() throws {
        let calendar = try springSemester(grace: 0)
        #expect(calendar.phase(at: utc("2026-04-25T03:59:59Z")) == .active)
        #expect(calendar.phase(at: utc("2026-04-25T04:00:00Z")) == .closed)
    }

    @Test("current week", arguments: [
        ("2026-01-10T04:59:59Z", Int?.none),
        ("2026-01-10T05:00:00Z", 1),
        ("2026-01-17T04:59:59Z", 1),
        ("2026-01-17T05:00:00Z", 2),
        ("2026-03-14T03:59:59Z", 9),
        ("2026-03-14T04:00:00Z", 10),
        ("2026-04-18T04:00:00Z", 15),
        ("2026-04-30T00:00:00Z", 15),
        ("2026-06-01T00:00:00Z", 15),
    ])
    func currentWeek(_ instant: String, _ expected: Int?) throws {
        #expect(try springSemester().currentWeek(at: utc(instant)) == expected)
    }

    @Test("late from the next Saturday 00:00:00 local", arguments: [
        ("2026-03-14T03:59:58Z", false),
        ("2026-03-14T03:59:59Z", false),
        ("2026-03-14T03:59:59.999Z", false),
        ("2026-03-14T04:00:00Z", true),
        ("2026-03-20T12:00:00Z", true),
        ("2026-03-07T05:00:00Z", false),
    ])
    func isLate(_ instant: String, _ late: Bool) throws {
        #expect(try springSemester().isLate(week: 9, receivedAt: utc(instant)) == late)
    }

    @Test("unlocked from the unlock instant on")
    func isUnlocked() throws {
        let calendar = try springSemester()
        #expect(!calendar.isUnlocked(week: 10, at: utc("2026-03-14T03:59:59Z")))
        #expect(calendar.isUnlocked(week: 10, at: utc("2026-03-14T04:00:00Z")))
    }

    @Test("the programme time zone is a parameter")
    func otherZones() throws {
        let karachi = try SemesterCalendar(start: LocalDate(year: 2026, month: 1, day: 10), timeZoneIdentifier: "Asia/Karachi")
        #expect(utcText(karachi.unlock(week: 1)) == "2026-01-09T19:00:00Z")
        #expect(utcText(karachi.unlock(week: 10)) == "2026-03-13T19:00:00Z")
        let sydney = try SemesterCalendar(start: LocalDate(year: 2026, month: 3, day: 28), timeZoneIdentifier: "Australia/Sydney")
        // AEDT (UTC+11) ends on Sunday 2026-04-05; from then AEST (UTC+10).
        #expect(utcText(sydney.unlock(week: 1)) == "2026-03-27T13:00:00Z")
        #expect(utcText(sydney.unlock(week: 2)) == "2026-04-03T13:00:00Z")
        #expect(utcText(sydney.unlock(week: 3)) == "2026-04-10T14:00:00Z")
    }

    @Test("a Saturday with no local midnight unlocks at its first instant")
    func missingMidnight() throws {
        // Iran moved 2020-03-21 (a Saturday) 00:00 +03:30 straight to 01:00 +04:30.
        let tehran = try SemesterCalendar(start: LocalDate(year: 2020, month: 3, day: 14), timeZoneIdentifier: "Asia/Tehran")
        #expect(utcText(tehran.unlock(week: 1)) == "2020-03-13T20:30:00Z")
        #expect(utcText(tehran.unlock(week: 2)) == "2020-03-20T20:30:00Z")
        #expect(utcText(tehran.deadline(week: 1)) == "2020-03-20T20:29:59Z")
        #expect(utcText(tehran.unlock(week: 3)) == "2020-03-27T19:30:00Z")
    }

    @Test("refuses a start that is not a Saturday", arguments: [
        LocalDate(year: 2026, month: 1, day: 9), LocalDate(year: 2026, month: 1, day: 11), LocalDate(year: 2026, month: 9, day: 7),
    ])
    func notSaturday(_ start: LocalDate) {
        #expect(throws: RuleConfigurationError.semesterNotSaturday(start)) {
            try SemesterCalendar(start: start, timeZone: newYork)
        }
        #expect(RuleConfigurationError.semesterNotSaturday(start).code == "semester_not_saturday")
    }

    @Test("refuses impossible settings")
    func badSettings() {
        #expect(throws: RuleConfigurationError.invalidStartDate(LocalDate(year: 2026, month: 2, day: 29))) {
            try SemesterCalendar(start: LocalDate(year: 2026, month: 2, day: 29), timeZone: newYork)
        }
        #expect(throws: RuleConfigurationError.invalidStartDate(LocalDate(year: 2026, month: 13, day: 1))) {
            try SemesterCalendar(start: LocalDate(year: 2026, month: 13, day: 1), timeZone: newYork)
        }
        let start = LocalDate(year: 2026, month: 1, day: 10)
        for count in [0, -1, 100] {
            #expect(throws: RuleConfigurationError.invalidWeekCount(count)) {
                try SemesterCalendar(start: start, timeZone: newYork, weekCount: count)
            }
        }
        #expect(throws: RuleConfigurationError.invalidGraceDays(-1)) {
            try SemesterCalendar(start: start, timeZone: newYork, catchUpGraceDays: -1)
        }
        #expect(throws: RuleConfigurationError.invalidTimeZone("Mars/Olympus")) {
            try SemesterCalendar(start: start, timeZoneIdentifier: "Mars/Olympus")
        }
    }

    @Test("configuration errors have distinct snake_case codes and one-line descriptions")
    func configurationCodes() {
        let errors: [RuleConfigurationError] = [
            .semesterNotSaturday(LocalDate(year: 2026, month: 1, day: 9)), .invalidStartDate(LocalDate(year: 2026, month: 2, day: 30)),
            .invalidTimeZone("x"), .invalidWeekCount(0), .invalidGraceDays(-1), .invalidAttemptLimit(0),
            .invalidAttemptWindowLength(0), .invalidEOCRequiredWeeks(16, weekCount: 15),
        ]
        #expect(Set(errors.map(\.code)).count == errors.count)
        for error in errors {
            #expect(error.code.allSatisfy { $0.isLowercase || $0 == "_" })
            #expect(!error.description.contains("\n") && error.description.hasSuffix("."))
        }
        #expect(RuleConfigurationError.semesterNotSaturday(LocalDate(year: 2026, month: 1, day: 9)).description
            == "The semester start 2026-01-09 is not a Saturday; weeks unlock on Saturdays.")
    }

    @Test("Codable round trip validates")
    func codable() throws {
        let calendar = try springSemester(weekCount: 12, grace: 7)
        let data = try JSONEncoder().encode(calendar)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["start"] as? String == "2026-01-10")
        #expect(json["time_zone"] as? String == "America/New_York")
        #expect(json["week_count"] as? Int == 12)
        #expect(json["catch_up_grace_days"] as? Int == 7)
        #expect(try JSONDecoder().decode(SemesterCalendar.self, from: data) == calendar)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SemesterCalendar.self, from: Data(#"{"start":"2026-01-11"}"#.utf8))
        }
    }
}
