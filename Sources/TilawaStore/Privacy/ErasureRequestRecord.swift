import Foundation
import GRDB
import TilawaCore

/// A student's request to have their recordings and personal data erased (DESIGN §16): due
/// `privacy.erasure_grace_days` after it was made. A pending one (not cancelled) is at most
/// one per student (the partial unique index `erasureRequest_pending`); carrying it out — by
/// the daemon once due, or by ops with `tilawa erase` — removes it with the student's data.
public struct ErasureRequestRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "erasureRequest"

    public var id: Int64?
    public var studentId: String
    public var requestedAt: Date
    /// When the daemon carries it out unless it is cancelled first.
    public var dueAt: Date
    /// `student:S1001`, or an operator's name.
    public var requestedBy: String
    public var cancelledAt: Date? = nil
    public var cancelledBy: String? = nil

    public init(studentId: String, requestedAt: Date, dueAt: Date, requestedBy: String) {
        self.studentId = studentId
        self.requestedAt = requestedAt
        self.dueAt = dueAt
        self.requestedBy = requestedBy
    }

    /// Whether it still stands (not cancelled).
    public var isPending: Bool { cancelledAt == nil }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
