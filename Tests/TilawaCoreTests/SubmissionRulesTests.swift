import Foundation
import Testing
@testable import TilawaCore

@Suite("SubmissionRules")
struct SubmissionRulesTests {
    let rules: SubmissionRules
    /// Thursday of week 5 (2026-02-12 10:00 EST).
    let midWeek5 = utc("2026-02-12T15:00:00Z")

    init() throws {
        rules = try SubmissionRules(calendar: springSemester())
    }

    private func admitted(_ result: Result<Admission, RuleRefusal>, sourceLocation: SourceLocation = #_sourceLocation) -> Admission? {
        switch result {
        case let .success(admission): return admission
        case let .failure(refusal):
            Issue.record("refused: \(refusal)", sourceLocation: sourceLocation)
            return nil
        }
    }

    private func refusal(_ result: Result<Admission, RuleRefusal>) -> RuleRefusal? {
        if case let .failure(refusal) = result { refusal } else { nil }
    }

    /// One accepted, long-reviewed submission per week in `weeks`, all outside the attempt window.
    private func oldHistory(weeks: [Int], before now: Date) -> [AcceptedSubmission] {
        weeks.enumerated().map { index, number in
            submission("old\(index)", .week(number), now.addingTimeInterval(-30 * day - Double(index) * 3600), .feedbackReady)
        }
    }

    // MARK: - Catch-up and lateness

    @Test("the current week is on time; catching up on a past week is admitted late")
    func catchUp() throws {
        let current = try #require(admitted(rules.admit(slot: .week(5), history: [], now: midWeek5)))
        #expect(!current.late)
        let past = try #require(admitted(rules.admit(slot: .week(2), history: [], now: midWeek5)))
        #expect(past.late)
        #expect(past.attempts == AttemptStatus(used: 1, limit: 2, remaining: 1, nextAttemptAt: nil))
    }

    @Test("23:59:59 local is on time, 00:00:00 is late (across the DST start)", arguments: [
        ("2026-03-14T03:59:59Z", false), ("2026-03-14T03:59:59.500Z", false), ("2026-03-14T04:00:00Z", true),
    ])
    func deadlineSecond(_ instant: String, _ late: Bool) throws {
        let admission = try #require(admitted(rules.admit(slot: .week(9), history: [], now: utc(instant))))
        #expect(admission.late == late)
    }

    @Test("eoc and assessment are never late")
    func neverLate() throws {
        let now = utc("2026-05-01T12:00:00Z")
        let history = oldHistory(weeks: Array(1...12), before: now)
        #expect(try #require(admitted(rules.admit(slot: .eoc, history: history, now: now))).late == false)
        #expect(try #require(admitted(rules.admit(slot: .assessment, history: [], now: now))).late == false)
    }

    // MARK: - Locked weeks

    @Test("a week not yet unlocked is refused with its unlock instant", arguments: [
        (6, "2026-02-14T05:00:00Z"), (9, "2026-03-07T05:00:00Z"), (10, "2026-03-14T04:00:00Z"), (15, "2026-04-18T04:00:00Z"),
    ])
    func locked(_ number: Int, _ unlocksAt: String) {
        let result = rules.admit(slot: .week(number), history: [], now: midWeek5)
        #expect(refusal(result) == .weekLocked(week: number, unlocksAt: utc(unlocksAt)))
    }

    @Test("a week is open from its unlock instant exactly")
    func unlockInstant() {
        #expect(refusal(rules.admit(slot: .week(10), history: [], now: utc("2026-03-14T03:59:59.999Z")))?.code == "week_locked")
        #expect(admitted(rules.admit(slot: .week(10), history: [], now: utc("2026-03-14T04:00:00Z"))) != nil)
    }

    @Test("before the semester: weeks locked, eoc not eligible, assessment allowed")
    func preSemester() {
        let now = utc("2026-01-05T12:00:00Z")
        #expect(refusal(rules.admit(slot: .week(1), history: [], now: now)) == .weekLocked(week: 1, unlocksAt: utc("2026-01-10T05:00:00Z")))
        #expect(refusal(rules.admit(slot: .eoc, history: [], now: now))
            == .eocNotEligible(have: 0, need: 12, opensAt: utc("2026-04-11T04:00:00Z")))
        #expect(admitted(rules.admit(slot: .assessment, history: [], now: now)) != nil)
    }

    // MARK: - End of course

    struct EOCCase: Sendable, CustomTestStringConvertible {
        let name: String
        let weeks: [Int]
        var failedWeek: Int? = nil
        let have: Int
        var testDescription: String { name }
    }

    @Test("eoc needs 12 distinct accepted weeks", arguments: [
        EOCCase(name: "11 distinct", weeks: Array(1...11), have: 11),
        EOCCase(name: "12 distinct", weeks: Array(1...12), have: 12),
        EOCCase(name: "12 submissions, 11 distinct", weeks: Array(1...11) + [3], have: 11),
        EOCCase(name: "15 distinct", weeks: Array(1...15), have: 15),
        EOCCase(name: "12 with one failed", weeks: Array(1...11), failedWeek: 12, have: 11),
    ])
    func eocEligibility(_ c: EOCCase) {
        let now = utc("2026-04-20T12:00:00Z")
        var history = oldHistory(weeks: c.weeks, before: now)
        if let failed = c.failedWeek {
            history.append(submission("failed", .week(failed), now.addingTimeInterval(-40 * day), .failed))
        }
        #expect(rules.distinctWeeksSubmitted(history: history) == c.have)
        #expect(rules.eocEligible(history: history) == (c.have >= 12))
        let result = rules.admit(slot: .eoc, history: history, now: now)
        if c.have >= 12 {
            #expect(admitted(result) != nil)
        } else {
            #expect(refusal(result) == .eocNotEligible(have: c.have, need: 12, opensAt: nil))
        }
    }

    @Test("superseded submissions still cover their week")
    func supersededCounts() {
        let now = utc("2026-04-20T12:00:00Z")
        var history = oldHistory(weeks: Array(1...11), before: now)
        history.append(submission("sup", .week(12), now.addingTimeInterval(-40 * day), .superseded))
        #expect(rules.eocEligible(history: history))
    }

    @Test("the eoc requirement is configurable and validated")
    func eocConfig() throws {
        let calendar = try springSemester()
        let none = try SubmissionRules(calendar: calendar, eocRequiredWeeks: 0, eocOpensWeek: 5)
        #expect(admitted(none.admit(slot: .eoc, history: [], now: midWeek5)) != nil)
        for bad in [-1, 16] {
            #expect(throws: RuleConfigurationError.invalidEOCRequiredWeeks(bad, weekCount: 15)) {
                try SubmissionRules(calendar: calendar, eocRequiredWeeks: bad)
            }
        }
        for bad in [0, 16] {
            #expect(throws: RuleConfigurationError.invalidEOCOpensWeek(bad, weekCount: 15)) {
                try SubmissionRules(calendar: calendar, eocOpensWeek: bad)
            }
        }
    }

    // MARK: - Semester closed

    @Test("closed from closesAt on, for weeks and eoc; the placement assessment is allowed any time", arguments: [
        ("2026-05-09T03:59:59Z", false), ("2026-05-09T04:00:00Z", true), ("2026-08-01T00:00:00Z", true),
    ])
    func closed(_ instant: String, _ isClosed: Bool) {
        let now = utc(instant)
        let history = oldHistory(weeks: Array(1...12), before: now)
        for slot in [Slot.week(3), .eoc] {
            let result = rules.admit(slot: slot, history: history, now: now)
            if isClosed {
                #expect(refusal(result) == .semesterClosed(closedAt: utc("2026-05-09T04:00:00Z")), "\(slot)")
            } else {
                #expect(admitted(result) != nil, "\(slot)")
            }
        }
        #expect(admitted(rules.admit(slot: .assessment, history: history, now: now)) != nil)
    }

    // MARK: - Attempts

    @Test("two in the window: attempt_limit names the oldest + 7 days")
    func attemptLimit() {
        let history = [
            submission("a", .week(3), midWeek5.addingTimeInterval(-5 * day)),
            submission("b", .week(4), midWeek5.addingTimeInterval(-2 * day)),
        ]
        let result = rules.admit(slot: .week(5), history: history, now: midWeek5)
        #expect(refusal(result) == .attemptLimit(nextAttemptAt: midWeek5.addingTimeInterval(2 * day), used: 2, limit: 2))
    }

    @Test("a recording exactly 7 days old frees the attempt")
    func attemptEdge() throws {
        let history = [
            submission("a", .week(3), midWeek5.addingTimeInterval(-week)),
            submission("b", .week(4), midWeek5.addingTimeInterval(-2 * day)),
        ]
        let admission = try #require(admitted(rules.admit(slot: .week(5), history: history, now: midWeek5)))
        #expect(admission.attempts == AttemptStatus(used: 2, limit: 2, remaining: 0, nextAttemptAt: midWeek5.addingTimeInterval(5 * day)))
        let oneSecondYounger = [
            submission("a", .week(3), midWeek5.addingTimeInterval(-week + 1)),
            submission("b", .week(4), midWeek5.addingTimeInterval(-2 * day)),
        ]
        #expect(refusal(rules.admit(slot: .week(5), history: oneSecondYounger, now: midWeek5))
            == .attemptLimit(nextAttemptAt: midWeek5.addingTimeInterval(1), used: 2, limit: 2))
    }

    @Test("assessment is not counted and not limited")
    func assessmentNotCounted() throws {
        let full = [
            submission("a", .week(3), midWeek5.addingTimeInterval(-3 * day)),
            submission("b", .week(4), midWeek5.addingTimeInterval(-2 * day)),
        ]
        let assessment = try #require(admitted(rules.admit(slot: .assessment, history: full, now: midWeek5)))
        #expect(assessment.attempts.used == 2)
        #expect(assessment.attempts.remaining == 0)
        let assessments = [
            submission("x", .assessment, midWeek5.addingTimeInterval(-3 * day)),
            submission("y", .assessment, midWeek5.addingTimeInterval(-day)),
        ]
        let weekly = try #require(admitted(rules.admit(slot: .week(5), history: assessments, now: midWeek5)))
        #expect(weekly.attempts == AttemptStatus(used: 1, limit: 2, remaining: 1, nextAttemptAt: nil))
    }

    @Test("eoc is counted")
    func eocCounted() {
        let now = utc("2026-04-28T12:00:00Z")
        let history = oldHistory(weeks: Array(1...12), before: now) + [
            submission("a", .week(13), now.addingTimeInterval(-3 * day)),
            submission("b", .eoc, now.addingTimeInterval(-day), .feedbackReady, result: .retake),
        ]
        #expect(refusal(rules.admit(slot: .eoc, history: history, now: now))?.code == "attempt_limit")
    }

    @Test("a failed submission returns its attempt")
    func failedReturnsAttempt() throws {
        let history = [
            submission("a", .week(3), midWeek5.addingTimeInterval(-3 * day), .failed),
            submission("b", .week(4), midWeek5.addingTimeInterval(-2 * day)),
        ]
        let admission = try #require(admitted(rules.admit(slot: .week(5), history: history, now: midWeek5)))
        #expect(admission.attempts.used == 2)
        #expect(admission.attempts.nextAttemptAt == midWeek5.addingTimeInterval(5 * day))
    }

    // MARK: - Order of checks

    @Test("first refusal wins: invalid, closed, locked, eligibility, attempts")
    func order() {
        let full = [
            submission("a", .week(1), midWeek5.addingTimeInterval(-3 * day)),
            submission("b", .week(2), midWeek5.addingTimeInterval(-2 * day)),
        ]
        #expect(refusal(rules.admit(slot: .week(16), history: full, now: midWeek5)) == .invalidWeek(input: "16", weekCount: 15))
        #expect(refusal(rules.admit(slot: .week(0), history: full, now: midWeek5))?.code == "invalid_week")
        #expect(refusal(rules.admit(slot: .week(9), history: full, now: midWeek5))?.code == "week_locked")
        #expect(refusal(rules.admit(slot: .eoc, history: full, now: midWeek5))?.code == "eoc_not_eligible")
        #expect(refusal(rules.admit(slot: .week(5), history: full, now: midWeek5))?.code == "attempt_limit")
        let afterClose = utc("2026-05-10T00:00:00Z")
        let fullThen = full.map { submission($0.id.rawValue, $0.slot, afterClose.addingTimeInterval(-day)) }
        #expect(refusal(rules.admit(slot: .eoc, history: fullThen, now: afterClose))?.code == "semester_closed")
    }

    // MARK: - Supersession

    @Test("only unreviewed submissions of the same slot are superseded, oldest first")
    func supersession() throws {
        let t = midWeek5.addingTimeInterval(-20 * day)
        let history = [
            submission("w4_awaiting", .week(4), t.addingTimeInterval(300), .awaitingFeedback),
            submission("w4_processing", .week(4), t.addingTimeInterval(100), .processing),
            submission("w4_reviewed", .week(4), t.addingTimeInterval(200), .feedbackReady),
            submission("w4_superseded", .week(4), t, .superseded),
            submission("w4_failed", .week(4), t.addingTimeInterval(400), .failed),
            submission("w5_awaiting", .week(5), t, .awaitingFeedback),
            submission("eoc_awaiting", .eoc, t, .awaitingFeedback),
            submission("asmt_awaiting", .assessment, t, .awaitingFeedback),
        ]
        let admission = try #require(admitted(rules.admit(slot: .week(4), history: history, now: midWeek5)))
        #expect(admission.supersedes == [id("w4_processing"), id("w4_awaiting")])
        let fresh = try #require(admitted(rules.admit(slot: .week(3), history: history, now: midWeek5)))
        #expect(fresh.supersedes.isEmpty)
        let assessment = try #require(admitted(rules.admit(slot: .assessment, history: history, now: midWeek5)))
        #expect(assessment.supersedes == [id("asmt_awaiting")])
    }

    @Test("a reviewed week is not superseded by a resubmission")
    func reviewedKept() throws {
        let history = [submission("done", .week(2), midWeek5.addingTimeInterval(-10 * day), .feedbackReady)]
        let admission = try #require(admitted(rules.admit(slot: .week(2), history: history, now: midWeek5)))
        #expect(admission.supersedes.isEmpty)
        #expect(admission.late)
    }

    // MARK: - Behind count and the catch-up sentence

    struct BehindCase: Sendable, CustomTestStringConvertible {
        let name: String
        let now: String
        let weeks: [Int]
        var failed: [Int] = []
        let behind: Int
        var testDescription: String { name }
    }

    @Test("behind count: past deadlines with no accepted submission", arguments: [
        BehindCase(name: "before the semester", now: "2026-01-01T00:00:00Z", weeks: [], behind: 0),
        BehindCase(name: "during week 1", now: "2026-01-15T00:00:00Z", weeks: [], behind: 0),
        BehindCase(name: "at week 1's last second", now: "2026-01-17T04:59:59Z", weeks: [], behind: 0),
        BehindCase(name: "week 1 just missed", now: "2026-01-17T05:00:00Z", weeks: [], behind: 1),
        BehindCase(name: "weeks 1–4 past, 1 and 3 done", now: "2026-02-12T15:00:00Z", weeks: [1, 3], behind: 2),
        BehindCase(name: "a failed one does not cover", now: "2026-02-12T15:00:00Z", weeks: [1, 3], failed: [2], behind: 2),
        BehindCase(name: "late submissions cover", now: "2026-02-12T15:00:00Z", weeks: [1, 2, 3, 4], behind: 0),
        BehindCase(name: "current week is not behind", now: "2026-02-12T15:00:00Z", weeks: [1, 2, 3, 4, 5], behind: 0),
        BehindCase(name: "after the semester, nothing done", now: "2026-06-01T00:00:00Z", weeks: [], behind: 15),
        BehindCase(name: "eoc phase, 12 done", now: "2026-04-30T00:00:00Z", weeks: Array(1...12), behind: 3),
    ])
    func behind(_ c: BehindCase) {
        let now = utc(c.now)
        let history = oldHistory(weeks: c.weeks, before: now)
            + c.failed.map { submission("f\($0)", .week($0), now.addingTimeInterval(-40 * day), .failed) }
            + [submission("asmt", .assessment, now.addingTimeInterval(-40 * day))]
        #expect(rules.behindCount(history: history, now: now) == c.behind)
    }

    @Test("catch-up sentence: zero, one, many; attempts left; none left; closed")
    func catchUpMessage() {
        let now = midWeek5  // weeks 1–4 are past their deadlines
        let twoBehind = oldHistory(weeks: [1, 3], before: now)
        #expect(rules.catchUpMessage(history: oldHistory(weeks: [1, 2, 3, 4], before: now), now: now) == "You are up to date.")
        #expect(rules.catchUpMessage(history: oldHistory(weeks: [1, 2, 3], before: now), now: now)
            == "You have 1 submission to catch up on. You can submit up to 2 this week.")
        #expect(rules.catchUpMessage(history: twoBehind, now: now)
            == "You have 2 submissions to catch up on. You can submit up to 2 this week.")
        let oneUsed = twoBehind + [submission("r1", .week(5), now.addingTimeInterval(-day))]
        #expect(rules.catchUpMessage(history: oneUsed, now: now)
            == "You have 2 submissions to catch up on. You can submit 1 this week.")
        // Next opens 2026-02-14T15:00:00Z + 1 s → 10:00:01 EST → shown as 10:01.
        let noneLeft = oneUsed + [submission("r2", .week(5), utc("2026-02-07T15:00:01Z"))]
        #expect(rules.catchUpMessage(history: noneLeft, now: now)
            == "You have 2 submissions to catch up on. Your next attempt opens on Saturday 14 February, 10:01 EST.")
        let afterClose = utc("2026-06-01T00:00:00Z")
        #expect(rules.catchUpMessage(history: oldHistory(weeks: Array(1...14), before: afterClose), now: afterClose)
            == "You missed 1 submission; the semester has closed, so it can no longer be sent.")
        #expect(rules.catchUpMessage(history: oldHistory(weeks: Array(1...13), before: afterClose), now: afterClose)
            == "You missed 2 submissions; the semester has closed, so they can no longer be sent.")
    }

    @Test("admission JSON uses snake_case")
    func admissionJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let admission = Admission(late: true, attempts: AttemptStatus(used: 1, limit: 2, remaining: 1, nextAttemptAt: nil), supersedes: [id("s1")])
        #expect(String(decoding: try encoder.encode(admission), as: UTF8.self)
            == #"{"attempts":{"granted":0,"limit":2,"next_attempt_at":null,"remaining":1,"used":1},"late":true,"supersedes":["s1"]}"#)
        let stored = submission("s1", .week(8), utc("2026-03-01T00:00:00Z"))
        encoder.dateEncodingStrategy = .iso8601
        #expect(String(decoding: try encoder.encode(stored), as: UTF8.self)
            == #"{"id":"s1","received_at":"2026-03-01T00:00:00Z","slot":"8","state":"awaiting_feedback"}"#)
    }
}
