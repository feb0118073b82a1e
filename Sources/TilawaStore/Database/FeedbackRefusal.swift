import Foundation
import GRDB
import TilawaCore

/// Why a coach's reply cannot be paired; each has a sentence a coach can act on.
public enum FeedbackRefusal: Error, Sendable, Equatable {
    case unknownStudent(String)
    case notAssignedCoach(student: String, coach: String)
    case noSubmission(student: String, slot: Slot)
    case unknownSubmission(String)

    /// Stable code.
    public var code: String {
        switch self {
        case .unknownStudent: "unknown_student"
        case .notAssignedCoach: "not_assigned_coach"
        case .noSubmission: "no_submission"
        case .unknownSubmission: "unknown_submission"
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
