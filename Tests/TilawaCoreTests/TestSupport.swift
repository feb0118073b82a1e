import Foundation
import Testing
@testable import TilawaCore

/// An instant written as RFC 3339 in UTC ("2026-03-14T04:00:00Z", fractions allowed).
func utc(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = text.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
    guard let date = formatter.date(from: text) else {
        Issue.record("bad test instant \(text)", sourceLocation: sourceLocation)
        return Date(timeIntervalSince1970: 0)
    }
    return date
}

/// RFC 3339 UTC text of an instant, for readable expectation failures.
func utcText(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
}

let newYork = TimeZone(identifier: "America/New_York")!
let day: TimeInterval = 86_400
let week: TimeInterval = 604_800

/// Semester starting Saturday 2026-01-10 in New York: crosses the 2026-03-08 DST start (weeks 9→10).
func springSemester(weekCount: Int = 15, grace: Int = 14) throws -> SemesterCalendar {
    try SemesterCalendar(start: LocalDate(year: 2026, month: 1, day: 10), timeZone: newYork, weekCount: weekCount, catchUpGraceDays: grace)
}

/// Semester starting Saturday 2026-09-05 in New York: crosses the 2026-11-01 DST end (in week 9).
func autumnSemester() throws -> SemesterCalendar {
    try SemesterCalendar(start: LocalDate(year: 2026, month: 9, day: 5), timeZone: newYork)
}

func id(_ text: String) -> Identifier {
    Identifier(rawValue: text) ?? Identifier(rawValue: "INVALID_TEST_ID")!
}

func submission(
    _ idText: String, _ slot: Slot, _ at: Date, _ state: SubmissionState = .awaitingFeedback, result: EOCResult? = nil
) -> AcceptedSubmission {
    AcceptedSubmission(id: id(idText), slot: slot, receivedAt: at, state: state, result: result)
}

/// Local wall-clock parts of `date` in New York.
func newYorkParts(_ date: Date) -> DateComponents {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = newYork
    return calendar.dateComponents([.year, .month, .day, .weekday, .hour, .minute, .second, .nanosecond], from: date)
}
