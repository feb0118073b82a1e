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
    /// The student it is about; nil for a coach's digest or operations' `storage_low`.
    public var studentId: String?
    /// `submission_received`, `submission_rejected`, `feedback_ready`, `feedback_overdue`, …
    public var type: String
    /// The JSON body sent to the webhook.
    public var payload: Data
    public var occurredAt: Date
    public var deliveredAt: Date?
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    /// Who it is for: `student` (the student `studentId`), `coach` (`recipientId`) or `ops`.
    public var recipient: String
    /// The coach's id for `coach`; nil otherwise.
    public var recipientId: String?
    /// The delivery queue, in order: `student:<id>`, `coach:<id>` or `ops`. One event of a
    /// queue is in flight at a time, so each recipient gets theirs in order.
    public var queue: String
    /// When the student read this event by itself (`POST …/events/{id}/read`, or listening to
    /// the reply of a `feedback_ready`); nil otherwise. Read also when at or before the
    /// student's read cursor.
    public var readAt: Date? = nil

    /// A new, undelivered event for the student `studentId`.
    public init(id: String, studentId: String, type: String, payload: Data, occurredAt: Date) {
        self.init(id: id, studentId: studentId, type: type, payload: payload, occurredAt: occurredAt, recipient: .student)
    }

    /// A new, undelivered event about `studentId` (nil: about no student) for `recipient`.
    /// A student's event always names its student.
    public init(id: String, studentId: String?, type: String, payload: Data, occurredAt: Date, recipient: EventRecipient) {
        self.id = id
        self.studentId = studentId
        self.type = type
        self.payload = payload
        self.occurredAt = occurredAt
        attempts = 0
        nextAttemptAt = occurredAt
        switch recipient {
        case .student:
            self.recipient = "student"
            queue = "student:\(studentId ?? "")"
        case let .coach(coachId):
            self.recipient = "coach"
            recipientId = coachId
            queue = "coach:\(coachId)"
        case .ops:
            self.recipient = "ops"
            queue = "ops"
        }
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { seq = inserted.rowID }
}
