import Foundation
import GRDB

/// A notification in the outbox: written in the same transaction as what it reports,
/// delivered to the webhook later, and listed in the student's event feed.
public struct EventRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "event"
    /// Feed cursor: increases with every event.
    public var seq: Int64?
    /// Stable id receivers use to de-duplicate.
    public var id: String
    public var studentId: String
    /// `submission_received`, `submission_rejected`, `feedback_ready`, `feedback_overdue`, …
    public var type: String
    /// The JSON body sent to the webhook.
    public var payload: Data
    public var occurredAt: Date
    public var deliveredAt: Date?
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?

    /// A new, undelivered event.
    public init(id: String, studentId: String, type: String, payload: Data, occurredAt: Date) {
        self.id = id
        self.studentId = studentId
        self.type = type
        self.payload = payload
        self.occurredAt = occurredAt
        attempts = 0
        nextAttemptAt = occurredAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { seq = inserted.rowID }
}
