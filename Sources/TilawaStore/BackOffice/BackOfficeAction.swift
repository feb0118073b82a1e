import Foundation
import TilawaCore

/// One back-office action (DESIGN §11). Each is applied with its `reason` and its operator in
/// one transaction that also writes its audit row and the notifications it implies.
public enum BackOfficeAction: Sendable, Equatable {
    /// Moves the student's deadline for a week (or the end-of-course assessment) to `dueAt`.
    case extend(studentId: String, slot: Slot, dueAt: Date)
    /// `count` recordings beyond the attempt window, usable until `expiresAt`.
    case grant(studentId: String, count: Int, expiresAt: Date)
    /// Re-pairs a reply with another submission.
    case moveFeedback(feedbackId: String, submissionId: String)
    /// Changes the student's current enrolment: coach, level, standing (each optional).
    case changeEnrolment(studentId: String, coachId: String?, levelId: String?, state: RuleOverrides.Standing?)
    /// Hands `coachId`'s open work to `coveringCoachId` until `until` (an instant not after now ends the cover).
    case cover(coachId: String, coveringCoachId: String, until: Date)

    /// The most recordings one grant may give.
    public static let maximumGrant = 10
    /// How far past the semester's close an extension may reach.
    public static let maximumExtensionPastClose: TimeInterval = 90 * 86_400
    /// How far ahead a grant or a cover may reach.
    public static let maximumHorizon: TimeInterval = 366 * 86_400
}

/// Why a back-office action was refused: a stable `code`, one sentence, and what kind of
/// refusal it is (HTTP 404, 409 or 422; the command line's 77 or 64).
public enum BackOfficeRefusal: Error, Sendable, Equatable {
    case unknownStudent(String)
    case unknownCoach(String)
    case unknownLevel(String)
    case unknownFeedback(String)
    case unknownSubmission(String)
    /// The student has no enrolment to change.
    case noEnrolment(String)
    /// Coach or level of an enrolment still awaiting placement: that is a placement.
    case notPlaced(String)
    case semesterClosed(String)
    /// `assessment`, or a week beyond the semester.
    case invalidSlot(String)
    /// An extension must be later than the programme's own deadline.
    case extensionNotLater(deadline: Date)
    case extensionTooFar(latest: Date)
    case invalidCount(Int)
    case expiryNotFuture
    case tooFarAhead(latest: Date)
    /// The reply carries an end-of-course result: moving it would move the result.
    case feedbackHasResult(String)
    case sameSubmission
    /// The target cannot take a reply (withdrawn, failed, or an end-of-course recording, whose reply needs a result).
    case notAnswerable(String, reason: String)
    /// Same-gender coaching forbids the change.
    case genderMismatch(String)
    case noChange
    case coverSelf
    case noCoverToEnd(String)
    /// The student was erased: nothing is recorded for them, and no notice queued to them, any more.
    case studentErased(String)

    public var code: String {
        switch self {
        case .unknownStudent: "unknown_student"
        case .unknownCoach: "unknown_coach"
        case .unknownLevel: "unknown_level"
        case .unknownFeedback: "unknown_feedback"
        case .unknownSubmission: "unknown_submission"
        case .noEnrolment: "no_enrolment"
        case .notPlaced: "not_placed"
        case .semesterClosed: "semester_closed"
        case .invalidSlot: "invalid_week"
        case .extensionNotLater: "extension_not_later"
        case .extensionTooFar: "extension_too_far"
        case .invalidCount: "invalid_count"
        case .expiryNotFuture: "expiry_not_future"
        case .tooFarAhead: "too_far_ahead"
        case .feedbackHasResult: "feedback_has_result"
        case .sameSubmission: "same_submission"
        case .notAnswerable: "not_answerable"
        case .genderMismatch: "gender_mismatch"
        case .noChange: "no_change"
        case .coverSelf: "cover_self"
        case .noCoverToEnd: "no_cover"
        case .studentErased: "student_erased"
        }
    }

    /// How the refusal is answered.
    public enum Kind: Sendable { case notFound, conflict, invalid }

    public var kind: Kind {
        switch self {
        case .unknownStudent, .unknownCoach, .unknownLevel, .unknownFeedback, .unknownSubmission: .notFound
        case .noEnrolment, .notPlaced, .semesterClosed, .feedbackHasResult, .sameSubmission, .notAnswerable, .genderMismatch,
             .noChange, .noCoverToEnd, .studentErased: .conflict
        case .invalidSlot, .extensionNotLater, .extensionTooFar, .invalidCount, .expiryNotFuture, .tooFarAhead, .coverSelf: .invalid
        }
    }

    /// One sentence for the operator (instants in UTC, RFC 3339).
    public var message: String {
        func instant(_ date: Date) -> String { date.formatted(.iso8601) }
        return switch self {
        case let .unknownStudent(id): "No student has the id \(RosterText.quoted(id))."
        case let .unknownCoach(id): "No coach has the id \(RosterText.quoted(id))."
        case let .unknownLevel(id): "No level has the id \(RosterText.quoted(id))."
        case let .unknownFeedback(id): "No reply has the id \(RosterText.quoted(id))."
        case let .unknownSubmission(id): "No recording has the id \(RosterText.quoted(id))."
        case let .noEnrolment(id): "Student \(RosterText.quoted(id)) has no enrolment to change; import them in a semester first."
        case let .notPlaced(id): "Student \(RosterText.quoted(id)) is still awaiting placement: place them (tilawa placement set) instead."
        case let .semesterClosed(id): "Semester \(RosterText.quoted(id)) has closed; its enrolments are final."
        case let .invalidSlot(input): "\(RosterText.quoted(input)) is not a week of the semester or \"eoc\"."
        case let .extensionNotLater(deadline): "An extension must end after the programme's own deadline, \(instant(deadline))."
        case let .extensionTooFar(latest): "An extension may run to \(instant(latest)) at the latest (90 days after the semester closes)."
        case let .invalidCount(count): "count must be from 1 to \(BackOfficeAction.maximumGrant); \(count) is not."
        case .expiryNotFuture: "expires_at must be in the future."
        case let .tooFarAhead(latest): "That is more than a year ahead; the latest is \(instant(latest))."
        case let .feedbackHasResult(id): "Reply \(RosterText.quoted(id)) carries an end-of-course result; a result is not moved — ask the coach to reply again."
        case .sameSubmission: "The reply is already on that recording."
        case let .notAnswerable(id, reason): "Recording \(RosterText.quoted(id)) cannot take this reply: \(reason)."
        case let .genderMismatch(detail): detail
        case .noChange: "The enrolment already has that coach, level and state."
        case .coverSelf: "A coach cannot cover themself; name another coach."
        case let .noCoverToEnd(id): "Coach \(RosterText.quoted(id)) is not covered now, so there is no cover to end."
        case let .studentErased(id): "Student \(RosterText.quoted(id)) was erased; nothing is recorded for them any more."
        }
    }
}
