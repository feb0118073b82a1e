import Foundation
import GRDB
import TilawaCore

/// A coach's audio reply to one submission.
public struct FeedbackRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "feedback"

    /// Where the reply is in its life.
    public enum State: String, Codable, Sendable {
        case processing, ready, failed
    }

    public var id: String
    public var submissionId: String
    public var coachId: String
    public var receivedAt: Date
    public var notes: String?
    public var state: State
    public var analysis: AudioAnalysis
    public var originalPath: String?
    public var audioPath: String?
    public var audioBytes: Int?
    public var waveformPath: String?
    public var outputGainDB: Double?
    public var origin: SubmissionOrigin

    /// A new reply, `processing` until its encode job finishes.
    public init(id: String, submissionId: String, coachId: String, receivedAt: Date, notes: String?,
                analysis: AudioAnalysis, originalPath: String, origin: SubmissionOrigin) {
        self.id = id
        self.submissionId = submissionId
        self.coachId = coachId
        self.receivedAt = receivedAt
        self.notes = notes
        state = .processing
        self.analysis = analysis
        self.originalPath = originalPath
        self.origin = origin
    }
}

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
