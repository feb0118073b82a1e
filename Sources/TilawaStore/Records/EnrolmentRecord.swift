import Foundation
import GRDB
import TilawaCore

/// A student in one semester: the level and coach of that semester, and its outcome.
///
/// Every submission belongs to one enrolment, and everything read about a semester's
/// history (weeks, behind count, EOC, review queue, pairing) is read through it, so
/// nothing of one semester shows in another. A pending enrolment (no level, no coach) is a
/// student awaiting placement; `placement set` completes it.
public struct EnrolmentRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "enrolment"

    /// What came of an enrolment's end-of-course assessment.
    public enum Outcome: String, Codable, Sendable {
        /// The EOC was passed: the level is graduated.
        case graduated
    }

    public var id: Int64?
    public var studentId: String
    public var semesterId: String
    /// Nil while the student awaits placement.
    public var levelId: String?
    /// Nil while the student awaits placement. May change mid-semester (`enrolmentChange` keeps the history).
    public var coachId: String?
    public var createdAt: Date
    /// When and by whom (`coach:C01`, `ops`, `roster`) the level and coach were decided.
    public var placedAt: Date?
    public var placedBy: String?
    public var outcome: Outcome?
    /// When `eoc_available` was recorded for this enrolment (once).
    public var eocAvailableNotifiedAt: Date?
    /// The first week the enrolment owes (DESIGN §14): 1 for a roster row unless its
    /// `owes_from_week` says otherwise; for a placement made later, the week it was made in.
    /// Weeks before it are never late, missed, behind or reminded.
    public var owesFromWeek: Int = 1
    /// `active`, `paused` or `left` (DESIGN §11; changed by the back office).
    public var state: RuleOverrides.Standing = .active

    /// Creates a record.
    public init(studentId: String, semesterId: String, levelId: String?, coachId: String?, createdAt: Date,
                placedAt: Date? = nil, placedBy: String? = nil) {
        self.studentId = studentId
        self.semesterId = semesterId
        self.levelId = levelId
        self.coachId = coachId
        self.createdAt = createdAt
        self.placedAt = placedAt
        self.placedBy = placedBy
    }

    /// Whether the enrolment has a level and a coach.
    public var isPlaced: Bool { levelId != nil && coachId != nil }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
