import Foundation
import GRDB
import TilawaCore

/// A consent to the recording policy (DESIGN §16), as the `consent` table keeps it: every one
/// given stays as history; at most one per student is current (not withdrawn), which the
/// partial unique index `consent_current` holds on both engines.
public struct ConsentRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "consent"

    public var id: Int64?
    public var studentId: String
    /// The policy's version as the consent names it.
    public var version: String
    public var givenBy: ConsentGiver
    /// The guardian who gave it (`givenBy == .guardian`); nil for the student's own.
    public var guardianName: String?
    /// The programme's clock when it was recorded.
    public var givenAt: Date
    /// When it stopped being current: withdrawn, or replaced by a newer consent.
    public var withdrawnAt: Date? = nil
    /// Who withdrew or replaced it: `student:S1001`, an operator's name.
    public var withdrawnBy: String? = nil

    public init(studentId: String, version: String, givenBy: ConsentGiver, guardianName: String?, givenAt: Date) {
        self.studentId = studentId
        self.version = version
        self.givenBy = givenBy
        self.guardianName = guardianName
        self.givenAt = givenAt
    }

    /// Whether it is the student's current consent.
    public var isCurrent: Bool { withdrawnAt == nil }

    /// Whether this consent and another say the same: version, giver and guardian.
    public func sameTerms(version: String, givenBy: ConsentGiver, guardianName: String?) -> Bool {
        self.version == version && self.givenBy == givenBy && self.guardianName == guardianName
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
