import Foundation
import TilawaCore

/// Why a placement cannot be recorded; `code` is stable, `message` one plain sentence.
public enum PlacementRefusal: Error, Sendable, Equatable {
    case unknownStudent(String)
    case unknownLevel(String)
    case unknownCoach(String)
    case unknownSemester(String)
    /// The enrolment's semester has closed: its enrolments are final.
    case semesterClosed(String)
    /// The coach deciding is not one of the placing coaches.
    case notPlacingCoach(String)
    /// The enrolment already has weekly or end-of-course recordings under another level or
    /// coach: changing it is a back-office operation, not a placement.
    case alreadyPlaced(student: String, semester: String, level: String?, coach: String?, recordings: Int)
    /// Same-gender coaching is on and the student and the coach have different known genders.
    case genderMismatch(String)

    /// Stable code.
    public var code: String {
        switch self {
        case .unknownStudent: "unknown_student"
        case .unknownLevel: "unknown_level"
        case .unknownCoach: "unknown_coach"
        case .unknownSemester: "unknown_semester"
        case .semesterClosed: "semester_closed"
        case .notPlacingCoach: "not_placing_coach"
        case .alreadyPlaced: "already_placed"
        case .genderMismatch: "gender_mismatch"
        }
    }

    /// One sentence for the person placing.
    public var message: String {
        switch self {
        case let .unknownStudent(id): "There is no student \(RosterText.quoted(id))."
        case let .unknownLevel(id): "There is no level \(RosterText.quoted(id)); levels are listed in program.yaml."
        case let .unknownCoach(id): "There is no coach \(RosterText.quoted(id)); coaches are listed in program.yaml."
        case let .unknownSemester(id): "There is no semester \(RosterText.quoted(id)); semesters are listed in program.yaml."
        case let .semesterClosed(id): "Semester \(RosterText.quoted(id)) has closed and its enrolments are final; place the student in a later semester."
        case let .notPlacingCoach(id): "Coach \(RosterText.quoted(id)) is not one of the coaches who place students (places: true in program.yaml)."
        case let .genderMismatch(sentence): sentence.prefix(1).uppercased() + sentence.dropFirst() + "."
        case let .alreadyPlaced(student, semester, level, coach, recordings):
            "Student \(RosterText.quoted(student)) is already placed in semester \(RosterText.quoted(semester)) at level \(RosterText.quoted(level ?? "none")) with coach \(RosterText.quoted(coach ?? "none")) and has \(recordings == 1 ? "1 weekly or end-of-course recording" : "\(recordings) weekly or end-of-course recordings") there; changing the level or coach mid-semester is a back-office change to the enrolment, not a placement."
        }
    }
}
