import Foundation
import GRDB
import TilawaCore

/// One upload's idempotency key and, once answered, the answer to replay.
public struct IdempotencyKeyRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "idempotencyKey"

    /// `in_flight` while the first request runs; `done` once its answer is stored.
    public enum State: String, Codable, Sendable {
        case inFlight = "in_flight"
        case done
    }

    public var studentId: String
    public var key: String
    /// SHA-256 of the request (slot and body), so a reuse with another body is detected.
    public var requestHash: String
    public var state: State
    public var responseStatus: Int?
    public var responseBody: Data?
    public var createdAt: Date
}
