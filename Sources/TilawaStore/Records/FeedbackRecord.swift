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
    /// The end-of-course result this reply carries (EOC replies only).
    public var result: EOCResult?
    /// When its student had fetched 95 % of its audio, or the app said it was listened to.
    public var listenedAt: Date?

    /// A new reply, `processing` until its encode job finishes.
    public init(id: String, submissionId: String, coachId: String, receivedAt: Date, notes: String?,
                analysis: AudioAnalysis, originalPath: String, origin: SubmissionOrigin, result: EOCResult? = nil) {
        self.id = id
        self.submissionId = submissionId
        self.coachId = coachId
        self.receivedAt = receivedAt
        self.notes = notes
        state = .processing
        self.analysis = analysis
        self.originalPath = originalPath
        self.origin = origin
        self.result = result
    }
}
