import Foundation
import Testing
@testable import TilawaCore

@Suite("RuleRefusal")
struct RuleRefusalTests {
    @Test("stable codes", arguments: [
        (RuleRefusal.invalidWeek(input: "0", weekCount: 15), "invalid_week"),
        (.weekLocked(week: 9, unlocksAt: Date(timeIntervalSince1970: 0)), "week_locked"),
        (.eocNotEligible(have: 11, need: 12, opensAt: nil), "eoc_not_eligible"),
        (.eocUnderReview, "eoc_under_review"),
        (.eocPassed, "eoc_passed"),
        (.notPlaced(placementDueHours: 48), "not_placed"),
        (.semesterClosed(closedAt: Date(timeIntervalSince1970: 0)), "semester_closed"),
        (.attemptLimit(nextAttemptAt: Date(timeIntervalSince1970: 0), used: 2, limit: 2), "attempt_limit"),
        (.unknownStudent(id: id("S9")), "unknown_student"),
        (.invalidIdentifier(input: "../x"), "invalid_identifier"),
        (.consentRequired(policyURL: "https://example.org/policy", policyVersion: "2026-09"), "consent_required"),
        (.erasurePending(requestedAt: Date(timeIntervalSince1970: 0), dueAt: Date(timeIntervalSince1970: 86_400)), "erasure_pending"),
    ])
    func codes(_ refusal: RuleRefusal, _ code: String) {
        #expect(refusal.code == code)
        let message = refusal.message(in: newYork)
        #expect(!message.isEmpty && !message.contains("\n") && message.hasSuffix("."))
        #expect(refusal.description.hasPrefix(code + ": "))
    }

    @Test("messages, dates in the programme zone", arguments: [
        (RuleRefusal.weekLocked(week: 10, unlocksAt: utc("2026-03-14T04:00:00Z")), "Week 10 opens on Saturday 14 March, 00:00 EDT."),
        (.weekLocked(week: 9, unlocksAt: utc("2026-03-07T05:00:00Z")), "Week 9 opens on Saturday 7 March, 00:00 EST."),
        (.eocNotEligible(have: 11, need: 12, opensAt: nil),
         "The end-of-course assessment needs 12 weeks submitted; you have 11, so complete 1 more weekly submission first."),
        (.eocNotEligible(have: 9, need: 12, opensAt: nil),
         "The end-of-course assessment needs 12 weeks submitted; you have 9, so complete 3 more weekly submissions first."),
        (.eocNotEligible(have: 12, need: 12, opensAt: utc("2026-04-11T04:00:00Z")),
         "The end-of-course assessment opens on Saturday 11 April, 00:00 EDT."),
        (.eocNotEligible(have: 10, need: 12, opensAt: utc("2026-04-11T04:00:00Z")),
         "The end-of-course assessment opens on Saturday 11 April, 00:00 EDT for students with 12 weeks submitted; you have 10, so complete 2 more weekly submissions first."),
        (.semesterClosed(closedAt: utc("2026-05-09T04:00:00Z")),
         "The semester closed on Saturday 9 May, 00:00 EDT; recordings can no longer be submitted."),
        (.attemptLimit(nextAttemptAt: utc("2026-03-10T18:32:17Z"), used: 2, limit: 2),
         "You have used both of your attempts for now; the next one opens on Tuesday 10 March, 14:33 EDT."),
        (.attemptLimit(nextAttemptAt: utc("2026-03-10T18:32:00Z"), used: 2, limit: 2),
         "You have used both of your attempts for now; the next one opens on Tuesday 10 March, 14:32 EDT."),
        (.attemptLimit(nextAttemptAt: utc("2026-03-10T18:32:00.001Z"), used: 1, limit: 1),
         "You have used your attempt for now; the next one opens on Tuesday 10 March, 14:33 EDT."),
        (.attemptLimit(nextAttemptAt: utc("2026-11-01T06:30:00Z"), used: 3, limit: 3),
         "You have used all 3 of your attempts for now; the next one opens on Sunday 1 November, 01:30 EST."),
        (.unknownStudent(id: id("S9")), "No student with id \"S9\" is enrolled; check the id with your coach."),
        (.invalidIdentifier(input: "a/b"), "\"a/b\" is not a valid id: use 1 to 64 letters A–Z, digits, \"_\" or \"-\"."),
    ])
    func messages(_ refusal: RuleRefusal, _ expected: String) {
        #expect(refusal.message(in: newYork) == expected)
    }

    @Test("another zone formats other wall-clock times")
    func zoneParameter() throws {
        let refusal = RuleRefusal.weekLocked(week: 10, unlocksAt: utc("2026-03-14T04:00:00Z"))
        #expect(refusal.message(in: try #require(TimeZone(identifier: "Europe/London"))) == "Week 10 opens on Saturday 14 March, 04:00 GMT.")
        #expect(refusal.description == "week_locked: Week 10 opens on Saturday 14 March, 04:00 GMT.")
    }

    @Test("untrusted input cannot break the line or flood the message")
    func hostileInput() {
        let refusal = RuleRefusal.invalidIdentifier(input: "x\r\ny\u{2028}z\u{1B}[31m" + String(repeating: "a", count: 10_000))
        let message = refusal.message(in: newYork)
        #expect(!message.contains("\n") && !message.contains("\r") && !message.contains("\u{2028}") && !message.contains("\u{1B}"))
        #expect(message.count < 200)
    }
}
