import Foundation
import GRDB
import TilawaCore

/// A Quran Coach.
public struct CoachRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "coach"
    public var id: String
    public var name: String
    public var email: String?

    /// Creates a record.
    public init(id: String, name: String, email: String?) {
        self.id = id
        self.name = name
        self.email = email
    }
}
