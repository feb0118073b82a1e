import Foundation
import Testing
@testable import TilawaCore

@Suite("NotificationSchedule")
struct NotificationScheduleTests {
    /// Fall 2026 in New York: week 9 unlocks Saturday 31 October (EDT) and is due Friday 6 November (EST).
    let fall = try! SemesterCalendar(start: LocalDate(year: 2026, month: 9, day: 5), timeZone: newYork)

    func local(_ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var components = DateComponents(year: 2026, month: month, day: day, hour: hour, minute: minute)
        components.timeZone = newYork
        return Calendar(identifier: .gregorian).date(from: components)!
    }

    @Test("by default: the unlock at 07:00 (quiet hours 22:00–07:00: no push at midnight), then Wednesday and Thursday at 18:00 local before the Friday deadline, across the DST change")
    func defaults() {
        let notices = NotificationSchedule.standard.notices(week: 9, calendar: fall)
        #expect(notices.map(\.kind) == [.weekUnlocked, .deadlineReminder, .deadlineReminder])
        #expect(notices.map(\.dueAt) == [local(10, 31, 7), local(11, 4, 18), local(11, 5, 18)])
        #expect(notices.map(\.daysBefore) == [0, 2, 1])
        #expect(notices.allSatisfy { $0.expiresAt == fall.deadline(week: 9) })
    }

    @Test("quiet hours move a notice to their end while that is before the deadline, else to just before they began")
    func quietHours() throws {
        let quiet = NotificationSchedule.QuietHours(start: try #require(LocalTime("21:00")), end: try #require(LocalTime("08:00")))
        let schedule = NotificationSchedule(
            reminders: [.init(daysBefore: 1, at: try #require(LocalTime("22:30"))), .init(daysBefore: 0, at: try #require(LocalTime("23:00")))],
            quietHours: quiet)
        let notices = schedule.notices(week: 9, calendar: fall)
        // The Saturday 00:00 unlock waits for 08:00; Thursday 22:30 moves to Friday 08:00; Friday
        // 23:00 cannot move past the deadline, so it goes out at 20:59, before the quiet hours.
        #expect(notices.map(\.dueAt) == [local(10, 31, 8), local(11, 6, 8), local(11, 6, 20, 59)])
        #expect(quiet.contains(minutes: 21 * 60) && quiet.contains(minutes: 7 * 60 + 59) && !quiet.contains(minutes: 8 * 60))
        let day = NotificationSchedule.QuietHours(start: try #require(LocalTime("13:00")), end: try #require(LocalTime("14:00")))
        #expect(day.contains(minutes: 13 * 60 + 30) && !day.contains(minutes: 14 * 60))
    }

    @Test("a student's own schedule: their reminder time for every reminder, their quiet hours or none")
    func personal() throws {
        let own = NotificationSchedule.standard.personal(quietHours: .some(nil), reminderTime: try #require(LocalTime("07:15")))
        #expect(own.notices(week: 9, calendar: fall).map(\.dueAt) == [local(10, 31, 0), local(11, 4, 7, 15), local(11, 5, 7, 15)])
        let quiet = try #require(NotificationSchedule.QuietHours(parsing: "21:30-06:00"))
        let theirs = NotificationSchedule.standard.personal(quietHours: .some(quiet), reminderTime: nil)
        #expect(theirs.notices(week: 9, calendar: fall).first?.dueAt == local(10, 31, 6))
        #expect(NotificationSchedule.standard.personal(quietHours: .none, reminderTime: nil) == .standard)
    }

    @Test("quiet hours parse as HH:MM-HH:MM and end at their end: tomorrow's from the evening, today's from the morning")
    func quietHoursEnd() throws {
        #expect(NotificationSchedule.QuietHours(parsing: "22:00-07:00") == NotificationSchedule.standardQuietHours)
        #expect(NotificationSchedule.standardQuietHours.text == "22:00-07:00")
        for text in ["22:00", "07:00-07:00", "24:00-07:00", "22:00-7:00", "", "22:00-07:00-08:00"] {
            #expect(NotificationSchedule.QuietHours(parsing: text) == nil, "\(text)")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = newYork
        let quiet = NotificationSchedule.standardQuietHours
        #expect(quiet.end(containing: local(11, 4, 23, 30), calendar: calendar) == local(11, 5, 7))
        #expect(quiet.end(containing: local(11, 5, 3), calendar: calendar) == local(11, 5, 7))
        #expect(quiet.end(containing: local(11, 5, 7), calendar: calendar) == nil)
        #expect(quiet.end(containing: local(11, 5, 21, 59), calendar: calendar) == nil)
    }

    @Test("LocalTime parses exactly HH:MM", arguments: [("18:00", true), ("00:00", true), ("23:59", true), ("24:00", false),
                                                        ("8:00", false), ("18:0", false), ("1800", false), ("ab:cd", false)])
    func parses(_ text: String, _ valid: Bool) {
        #expect((LocalTime(text) != nil) == valid)
    }
}
