import Foundation
import GRDB

/// A unit of durable background work (encoding an accepted recording or a coach reply).
///
/// Jobs survive restarts: a job left `running` by a process that died, or whose lease ran
/// out, is claimed again; `attempts` numbers the claims and fences the writes of old ones.
public struct JobRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "job"

    /// What the job does.
    public enum Kind: String, Codable, Sendable {
        case encodeSubmission = "encode_submission"
        case encodeFeedback = "encode_feedback"
    }

    /// Where the job is in its life.
    public enum State: String, Codable, Sendable {
        case queued, running, done, failed
        /// Its recording was withdrawn before it ran.
        case cancelled
    }

    public var id: Int64?
    public var kind: Kind
    /// The submission or feedback id.
    public var subjectId: String
    public var state: State
    public var attempts: Int
    public var createdAt: Date
    public var notBefore: Date
    /// `pid@host` of the process working on it.
    public var lockedBy: String?
    public var lockedAt: Date?
    public var lastError: String?
    /// Until when the running claim holds unless renewed (`AppDatabase.jobLeaseDuration`).
    public var leaseExpiresAt: Date?
    /// Claims that ended in a passing failure (the artifact store or the database away, the
    /// disk full): they do not use the job's attempts (`AppDatabase.deferJob`).
    public var transientFailures: Int

    /// A new queued job, due at once.
    ///
    /// `notBefore` starts at the epoch rather than `now`: a new job must be runnable by any
    /// process even if that process's clock is a little behind (only retries wait).
    public init(kind: Kind, subjectId: String, now: Date) {
        self.kind = kind
        self.subjectId = subjectId
        state = .queued
        attempts = 0
        transientFailures = 0
        createdAt = now
        notBefore = Date(timeIntervalSince1970: 0)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
