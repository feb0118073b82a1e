import Foundation
import GRDB
import TilawaCore

/// A student, with the level, coach and semester they belong to.
public struct StudentRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "student"
    public var id: String
    public var name: String
    public var levelId: String
    public var coachId: String
    public var semesterId: String

    /// Creates a record.
    public init(id: String, name: String, levelId: String, coachId: String, semesterId: String) {
        self.id = id
        self.name = name
        self.levelId = levelId
        self.coachId = coachId
        self.semesterId = semesterId
    }
}
