import Foundation
import GRDB
import TilawaCore

/// What the store needs to record a coach's reply.
public struct FeedbackRequest: Sendable {
    public var feedbackId: String
    public var coachId: String
    public var receivedAt: Date
    public var notes: String?
    public var analysis: AudioAnalysis
    public var originalPath: String
    public var origin: SubmissionOrigin
    /// The drop-folder file's content hash and name, recorded with the reply (exactly-once).
    public var dropFile: (sha256: String, fileName: String)?
    /// The end-of-course result the reply carries (required for, and only for, an EOC reply).
    public var result: EOCResult?
    /// The `Idempotency-Key` the reply's request claimed: answered in the reply's own commit.
    public var idempotency: IdempotencyClaim?

    public init(feedbackId: String, coachId: String, receivedAt: Date, notes: String?, analysis: AudioAnalysis,
                originalPath: String, origin: SubmissionOrigin, dropFile: (sha256: String, fileName: String)? = nil,
                result: EOCResult? = nil, idempotency: IdempotencyClaim? = nil) {
        self.feedbackId = feedbackId
        self.coachId = coachId
        self.receivedAt = receivedAt
        self.notes = notes
        self.analysis = analysis
        self.originalPath = originalPath
        self.origin = origin
        self.dropFile = dropFile
        self.result = result
        self.idempotency = idempotency
    }
}
