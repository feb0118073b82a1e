import Foundation
import GRDB
import TilawaCore

/// A file taken from a coach's drop folder, by content hash: each is processed exactly once.
public struct DropFileRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "dropFile"
    public var sha256: String
    public var coachId: String
    public var fileName: String
    /// `processed` or `rejected`.
    public var outcome: String
    public var reason: String?
    public var feedbackId: String?
    public var processedAt: Date

    /// Creates a record.
    public init(sha256: String, coachId: String, fileName: String, outcome: String, reason: String?, feedbackId: String?, processedAt: Date) {
        self.sha256 = sha256
        self.coachId = coachId
        self.fileName = fileName
        self.outcome = outcome
        self.reason = reason
        self.feedbackId = feedbackId
        self.processedAt = processedAt
    }
}
