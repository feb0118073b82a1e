import Foundation
import GRDB
import TilawaCore

/// Why a coach's reply cannot be paired; each has a sentence a coach can act on.
public enum FeedbackRefusal: Error, Sendable, Equatable {
    case unknownStudent(String)
    case notAssignedCoach(student: String, coach: String)
    case noSubmission(student: String, slot: Slot)
    case unknownSubmission(String)
    /// An end-of-course reply must say `pass` or `retake`.
    case eocResultRequired(student: String)
    /// Only an end-of-course reply carries a result.
    case resultNotApplicable(result: EOCResult, slot: Slot)
    /// The recording was withdrawn by the student, or lost (`failed`): nothing to answer.
    case notAnswerable(id: String, state: SubmissionState)

    /// The refusal of a reply whose end-of-course result does not fit `submission`: missing on
    /// an EOC reply, present on any other; nil when it fits. The one rule the HTTP route (before
    /// the body is read), the intake (before decoding) and the store (in the transaction) apply.
    public static func result(_ result: EOCResult?, for submission: SubmissionRecord) -> FeedbackRefusal? {
        if submission.kind == .eoc, result == nil { return .eocResultRequired(student: submission.studentId) }
        if submission.kind != .eoc, let result { return .resultNotApplicable(result: result, slot: submission.slot) }
        return nil
    }

    /// Stable code.
    public var code: String {
        switch self {
        case .unknownStudent: "unknown_student"
        case .notAssignedCoach: "not_assigned_coach"
        case .noSubmission: "no_submission"
        case .unknownSubmission: "unknown_submission"
        case .eocResultRequired: "eoc_result_missing"
        case .resultNotApplicable: "result_not_applicable"
        case .notAnswerable: "not_answerable"
        }
    }

    /// One plain sentence for the coach (the drop folder's `.reason.txt`, the CLI, the API).
    public var message: String {
        switch self {
        case let .unknownStudent(student):
            "No student \(student) is enrolled — check the student id in the file name."
        case let .notAssignedCoach(student, coach):
            "\(student) is not one of your students (coach \(coach) is not assigned to them) — check the student id, or ask operations to reassign them."
        case let .noSubmission(student, slot):
            "No submission from \(student) for \(Self.describe(slot)) yet — check the student id and week number."
        case let .unknownSubmission(id):
            "There is no submission \(id)."
        case let .eocResultRequired(student):
            "An end-of-course reply must give the result: name it \(student)_eoc_pass or \(student)_eoc_retake (result=pass or result=retake over HTTP)."
        case let .resultNotApplicable(result, slot):
            "Only an end-of-course reply carries a result; this one answers \(Self.describe(slot)), so leave out \"\(result.rawValue)\"."
        case let .notAnswerable(id, state):
            state == .withdrawn
                ? "The student withdrew recording \(id) shortly after sending it; there is nothing to answer."
                : "Recording \(id) was lost to an internal error and the student was asked to record again; there is nothing to answer."
        }
    }

    static func describe(_ slot: Slot) -> String {
        switch slot {
        case let .week(number): "week \(number)"
        case .eoc: "the end-of-course assessment"
        case .assessment: "the placement assessment"
        }
    }
}
