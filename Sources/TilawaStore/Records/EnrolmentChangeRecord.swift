import Foundation
import GRDB
import TilawaCore

/// One change to an enrolment, for the audit trail: enrolled, placed, coach changed.
public struct EnrolmentChangeRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "enrolmentChange"

    /// What happened.
    public enum Change: String, Codable, Sendable {
        case enrolled, placed, coachChanged = "coach_changed", graduated
        case levelChanged = "level_changed", paused, resumed, left
    }

    public var id: Int64?
    public var enrolmentId: Int64
    public var change: Change
    public var levelId: String?
    public var coachId: String?
    public var changedAt: Date
    /// `roster`, `ops`, `coach:C01`, `migration`, `scim` (a student the identity provider provisioned).
    public var changedBy: String
    /// The back-office audit row of this change, if it was one (it is then listed once, from there).
    public var auditId: Int64? = nil

    /// Creates a record.
    public init(enrolmentId: Int64, change: Change, levelId: String?, coachId: String?, changedAt: Date, changedBy: String) {
        self.enrolmentId = enrolmentId
        self.change = change
        self.levelId = levelId
        self.coachId = coachId
        self.changedAt = changedAt
        self.changedBy = changedBy
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
