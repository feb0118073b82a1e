import Foundation
import GRDB
import TilawaCore

/// One request's idempotency key (a student's upload, a coach's reply) and, once answered, the answer to replay.
public struct IdempotencyKeyRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "idempotencyKey"

    /// `in_flight` while the first request runs; `done` once its answer is stored.
    public enum State: String, Codable, Sendable {
        case inFlight = "in_flight"
        case done
    }

    /// Whose key space: `IdempotencyOwner.storageValue` (a student's id, or `coach:<id>`).
    public var owner: String
    public var key: String
    /// What the request was (its slot or submission, and its body's SHA-256), so a reuse with another body is detected.
    public var requestHash: String
    public var state: State
    public var responseStatus: Int?
    public var responseBody: Data?
    public var createdAt: Date
}
