import Foundation
import Testing
@testable import TilawaCore

@Suite("Recorded-At of an offline recording")
struct RecordedAtTests {
    @Test("RFC 3339 with an offset or fractional seconds; anything else is refused", arguments: [
        ("2026-11-20T23:00:00-05:00", 1_795_233_600.0),
        ("2026-11-21T04:00:00Z", 1_795_233_600.0),
        ("2026-11-21T04:00:00.250Z", 1_795_233_600.25),
    ])
    func parses(_ text: String, _ seconds: Double) {
        #expect(RecordedAt(parsing: text)?.claimed == Date(timeIntervalSince1970: seconds))
    }

    @Test("malformed", arguments: ["", "last Friday", "2026-11-21", "2026-11-21 04:00:00", "1795752000", String(repeating: "9", count: 80)])
    func refuses(_ text: String) {
        #expect(RecordedAt(parsing: text) == nil)
    }

    @Test("believable only between the offline allowance before the upload and a minute past its receipt")
    func believable() {
        let began = Date(timeIntervalSince1970: 1_000_000)
        let received = began.addingTimeInterval(30)
        let allowance: TimeInterval = 72 * 3_600
        func reference(_ offset: TimeInterval) -> Date? {
            RecordedAt(claimed: began.addingTimeInterval(offset)).lateReference(uploadBegan: began, receivedAt: received, maxOffline: allowance)
        }
        #expect(reference(-allowance) == began.addingTimeInterval(-allowance))
        #expect(reference(-allowance - 1) == nil)
        #expect(reference(30 + 60) == received, "clock skew: at most the receipt")
        #expect(reference(30 + 61) == nil, "in the future")
    }

    @Test("it decides late, and only late")
    func decidesLate() throws {
        let calendar = try SemesterCalendar(start: LocalDate(year: 2026, month: 9, day: 5), timeZoneIdentifier: "America/New_York")
        let rules = try SubmissionRules(calendar: calendar, attemptWindow: .standard, eocRequiredWeeks: 12, eocOpensWeek: 14, placed: true)
        let afterDeadline = calendar.deadline(week: 3).addingTimeInterval(3_600)
        let recorded = calendar.deadline(week: 3).addingTimeInterval(-3_600)
        #expect(try rules.admit(slot: .week(3), history: [], now: afterDeadline, recordedAt: recorded).get().late == false)
        #expect(try rules.admit(slot: .week(3), history: [], now: afterDeadline).get().late == true)
        // The lock still uses the server's clock: a claim inside week 4 does not open week 5.
        #expect(throws: RuleRefusal.self) {
            try rules.admit(slot: .week(5), history: [], now: afterDeadline, recordedAt: calendar.unlock(week: 5)).get()
        }
    }
}
