import Foundation
import Testing
@testable import TilawaCore

@Suite("BusinessDays")
struct BusinessDaysTests {
    let days = BusinessDays(timeZone: newYork, holidays: [LocalDate(year: 2026, month: 11, day: 26)])

    /// A New York wall-clock instant.
    func local(_ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        var components = DateComponents(year: 2026, month: month, day: day, hour: hour, minute: minute)
        components.timeZone = newYork
        return Calendar(identifier: .gregorian).date(from: components)!
    }

    @Test("five business days later, at the same local time, skipping weekends and holidays", arguments: [
        // Monday → Monday.
        (11, 2, 11, 9),
        // Friday → the next Friday.
        (11, 6, 11, 13),
        // Monday 23 November → Tuesday 1 December: Thanksgiving (26th) and the weekend are skipped.
        (11, 23, 12, 1),
        // Saturday 7 November counts from Monday 9th: Monday 16th.
        (11, 7, 11, 16),
        // Thanksgiving itself counts from Friday 27th: Friday 4 December.
        (11, 26, 12, 4),
    ])
    func adds(_ month: Int, _ day: Int, _ dueMonth: Int, _ dueDay: Int) {
        #expect(days.adding(5, to: local(month, day, 15, 30)) == local(dueMonth, dueDay, 15, 30))
    }

    @Test("the local time holds across the end of daylight saving time (1 November)")
    func acrossDST() {
        // Friday 30 October 10:00 EDT → Friday 6 November 10:00 EST: 7 days and 1 hour later.
        let start = local(10, 30, 10)
        let due = days.adding(5, to: start)
        #expect(due == local(11, 6, 10))
        #expect(due.timeIntervalSince(start) == 7 * 86_400 + 3_600)
        #expect(HumanDate.format(due, in: newYork) == "Friday 6 November, 10:00 EST")
    }
}

@Suite("End-of-course status")
struct EOCStatusTests {
    let rules = try! SubmissionRules(calendar: try! springSemester(), eocRequiredWeeks: 12, eocOpensWeek: 14)

    /// One reviewed submission per week in `weeks`, a month before `now`.
    func oldHistory(weeks: [Int], before now: Date) -> [AcceptedSubmission] {
        weeks.enumerated().map { index, number in
            submission("old\(index)", .week(number), now.addingTimeInterval(-30 * 86_400 - Double(index) * 3_600), .feedbackReady)
        }
    }

    @Test("locked before the opening week even with 12 weeks; available from it; under review; retake; passed")
    func lifecycle() {
        let week12 = rules.calendar.unlock(week: 12).addingTimeInterval(86_400)
        let history = oldHistory(weeks: Array(1...12), before: week12)
        let early = rules.eocStatus(history: history, now: week12)
        #expect(early.state == .locked && early.have == 12 && early.missing == 0)
        #expect(early.message(now: week12, in: newYork, levelName: "Foundations", resultsExpectedBy: nil, businessDays: 5)
            == "The end-of-course assessment opens on Saturday 11 April, 00:00 EDT.")

        let week14 = rules.eocOpensAt.addingTimeInterval(60)
        #expect(rules.eocStatus(history: history, now: week14).state == .available)
        #expect(rules.eocStatus(history: Array(history.prefix(9)), now: week14).state == .locked)
        #expect(rules.eocStatus(history: Array(history.prefix(9)), now: week14)
            .message(now: week14, in: newYork, levelName: nil, resultsExpectedBy: nil, businessDays: 5)
            == "Complete 3 more weekly submissions to unlock the end-of-course assessment.")

        let sent = history + [submission("e1", .eoc, week14)]
        let review = rules.eocStatus(history: sent, now: week14)
        #expect(review.state == .underReview)
        #expect(review.message(now: week14, in: newYork, levelName: nil, resultsExpectedBy: rules.calendar.unlock(week: 15), businessDays: 5)
            == "Your end-of-course assessment is being reviewed; results take up to 5 business days. Results expected by Saturday 18 April.")
        #expect(rules.admit(slot: .eoc, history: sent, now: week14.addingTimeInterval(60)) == .failure(.eocUnderReview))

        let retake = history + [submission("e1", .eoc, week14, .feedbackReady, result: .retake)]
        #expect(rules.eocStatus(history: retake, now: week14).state == .retake)
        let again = history + [submission("e1", .eoc, week14, .feedbackReady, result: .retake),
                               submission("e2", .eoc, week14.addingTimeInterval(60))]
        #expect(rules.eocStatus(history: again, now: week14).state == .underReview)

        let passed = history + [submission("e1", .eoc, week14, .feedbackReady, result: .pass)]
        #expect(rules.eocStatus(history: passed, now: week14).state == .passed)
        #expect(rules.eocStatus(history: passed, now: week14)
            .message(now: week14, in: newYork, levelName: "Foundations", resultsExpectedBy: nil, businessDays: 5)
            == "Congratulations! You've graduated Foundations.")
        #expect(rules.admit(slot: .eoc, history: passed, now: week14) == .failure(.eocPassed))
        // After the close a retake can no longer be used.
        #expect(rules.eocStatus(history: retake, now: rules.calendar.closesAt).state == .locked)
    }

    @Test("an unplaced student: weeks refused not_placed, the assessment admitted, nothing behind")
    func unplaced() throws {
        let unplaced = try SubmissionRules(calendar: try springSemester(), placed: false)
        let now = unplaced.calendar.unlock(week: 6)
        #expect(unplaced.admit(slot: .week(1), history: [], now: now) == .failure(.notPlaced(placementDueHours: 48)))
        #expect(unplaced.admit(slot: .eoc, history: [], now: now) == .failure(.notPlaced(placementDueHours: 48)))
        #expect((try? unplaced.admit(slot: .assessment, history: [], now: now).get()) != nil)
        #expect(unplaced.behindCount(history: [], now: now) == 0)
        #expect(unplaced.eocStatus(history: [], now: unplaced.eocOpensAt).state == .locked)
    }
}
