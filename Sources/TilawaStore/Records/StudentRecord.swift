import Foundation
import GRDB
import TilawaCore

/// A student of the programme. Which semester, level and coach they have is not a property
/// of the student but of each `EnrolmentRecord`: a student is enrolled once per semester.
public struct StudentRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "student"
    public var id: String
    public var name: String
    /// `female` or `male` (same-gender coaching); nil when not given.
    public var gender: String? = nil

    /// Creates a record.
    public init(id: String, name: String, gender: String? = nil) {
        self.id = id
        self.name = name
        self.gender = gender
    }
}
