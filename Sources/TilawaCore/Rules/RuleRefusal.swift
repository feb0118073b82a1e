import Foundation

/// Why the programme's rules refuse a request; `code` is stable, `message(in:)` is for people.
///
/// The daemon maps these to HTTP problem+json (the `code` member plus the data carried
/// here: `unlocks_at`, `next_attempt_at`, …) and the CLI to `tilawa: <code>: <message>`
/// (DESIGN §3, §4). Audio rejections are a separate type; this one is only the rules.
public enum RuleRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The week/slot text is not 1…`weekCount`, `eoc` or `assessment`.
    case invalidWeek(input: String, weekCount: Int)
    /// The week has not unlocked yet; it does at `unlocksAt`.
    case weekLocked(week: Int, unlocksAt: Date)
    /// The end-of-course assessment is not open to this student: it opens at `opensAt`
    /// (nil once that has passed) and needs `need` distinct weeks; the student has `have`.
    case eocNotEligible(have: Int, need: Int, opensAt: Date?)
    /// An end-of-course recording is waiting for its result; another is not accepted.
    case eocUnderReview
    /// The end-of-course assessment of this level is passed.
    case eocPassed
    /// The student has not been placed in a level yet: only the placement assessment is
    /// accepted; placements are promised within `placementDueHours` (`program.placement_due_hours`).
    case notPlaced(placementDueHours: Double)
    /// The semester closed at `closedAt` (`unlock(last) + 7 days + catch_up_grace_days`).
    case semesterClosed(closedAt: Date)
    /// All attempts of the rolling window are used; the next one opens at `nextAttemptAt`.
    case attemptLimit(nextAttemptAt: Date, used: Int, limit: Int)
    /// The id is well formed but no such student is enrolled.
    case unknownStudent(id: Identifier)
    /// The text is not a valid id (`[A-Za-z0-9_-]{1,64}`).
    case invalidIdentifier(input: String)
    /// The enrolment is paused by the programme (DESIGN §11): nothing is accepted until it resumes.
    case enrolmentPaused
    /// The student has left the programme this semester.
    case enrolmentLeft
    /// `privacy.require_consent` is on and the student has no consent that counts: the policy
    /// at `policyURL` (of `policyVersion`, when one is set) is to be read and accepted first.
    case consentRequired(policyURL: String, policyVersion: String?)
    /// The student asked at `requestedAt` for their recordings to be erased (due at `dueAt`):
    /// nothing is accepted while the request stands.
    case erasurePending(requestedAt: Date, dueAt: Date)

    /// The stable snake_case code (problem+json `code`, CLI error prefix, audit table).
    public var code: String {
        switch self {
        case .invalidWeek: "invalid_week"
        case .weekLocked: "week_locked"
        case .eocNotEligible: "eoc_not_eligible"
        case .eocUnderReview: "eoc_under_review"
        case .eocPassed: "eoc_passed"
        case .notPlaced: "not_placed"
        case .semesterClosed: "semester_closed"
        case .attemptLimit: "attempt_limit"
        case .unknownStudent: "unknown_student"
        case .invalidIdentifier: "invalid_identifier"
        case .enrolmentPaused: "enrolment_paused"
        case .enrolmentLeft: "enrolment_left"
        case .consentRequired: "consent_required"
        case .erasurePending: "erasure_pending"
        }
    }

    /// One line a student can act on, with dates in the programme's `timeZone`.
    ///
    /// Untrusted input is quoted, stripped of control characters and cut short, so the
    /// line stays one line.
    public func message(in timeZone: TimeZone) -> String {
        switch self {
        case let .invalidWeek(input, weekCount):
            return "\(MessageText.quoted(input)) is not a week: use a number from 1 to \(weekCount), \"eoc\" or \"assessment\"."
        case let .weekLocked(week, unlocksAt):
            return "Week \(week) opens on \(HumanDate.format(unlocksAt, in: timeZone))."
        case let .eocNotEligible(have, need, opensAt):
            let missing = max(0, need - have)
            let weeks = missing == 1 ? "1 more weekly submission" : "\(missing) more weekly submissions"
            switch (opensAt, missing) {
            case let (opensAt?, 0):
                return "The end-of-course assessment opens on \(HumanDate.format(opensAt, in: timeZone))."
            case let (opensAt?, _):
                return "The end-of-course assessment opens on \(HumanDate.format(opensAt, in: timeZone)) for students with \(need) weeks submitted; you have \(have), so complete \(weeks) first."
            default:
                return "The end-of-course assessment needs \(need) weeks submitted; you have \(have), so complete \(weeks) first."
            }
        case .eocUnderReview:
            return "Your end-of-course assessment is being reviewed; you can record it again only if your coach asks for a retake."
        case .eocPassed:
            return "You have already passed this level's end-of-course assessment."
        case let .notPlaced(hours):
            return StudentMessages.awaitingPlacement(placementDueHours: hours)
        case let .semesterClosed(closedAt):
            return "The semester closed on \(HumanDate.format(closedAt, in: timeZone)); recordings can no longer be submitted."
        case let .attemptLimit(nextAttemptAt, _, limit):
            // The window length is configurable, so the message names no period; it names
            // the instant instead, rounded up so the student is not refused again.
            let attempts = switch limit {
            case 1: "your attempt"
            case 2: "both of your attempts"
            default: "all \(limit) of your attempts"
            }
            return "You have used \(attempts) for now; the next one opens on \(HumanDate.format(nextAttemptAt, in: timeZone, roundingUp: true))."
        case let .unknownStudent(id):
            return "No student with id \"\(id)\" is enrolled; check the id with your coach."
        case let .invalidIdentifier(input):
            return "\(MessageText.quoted(input)) is not a valid id: use 1 to 64 letters A–Z, digits, \"_\" or \"-\"."
        case .enrolmentPaused:
            return "Your enrolment is paused, so recordings are not accepted for now; ask the programme's office to resume it."
        case .enrolmentLeft:
            return "Your enrolment this semester has ended, so recordings are no longer accepted; ask the programme's office if this is a mistake."
        case let .consentRequired(policyURL, _):
            return "Before you record, please read and accept the recording policy at \(policyURL)."
        case let .erasurePending(requestedAt, _):
            return "You asked on \(HumanDate.day(requestedAt, in: timeZone)) for your recordings to be erased; cancel that request to record again."
        }
    }

    /// `code: message` with dates in UTC, for logs; students get `message(in:)`.
    public var description: String {
        "\(code): \(message(in: .gmt))"
    }
}
