import Foundation
import GRDB
import TilawaCore

/// A level of the curriculum (each has its own 15 weeks of passages).
public struct LevelRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "level"
    public var id: String
    public var name: String

    /// Creates a record.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
