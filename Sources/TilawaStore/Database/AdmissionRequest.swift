import Foundation
import GRDB
import TilawaCore

/// What the store needs to record an accepted recording.
public struct AdmissionRequest: Sendable {
    public var submissionId: String
    public var studentId: String
    public var slot: Slot
    public var receivedAt: Date
    public var analysis: AudioAnalysis
    public var source: AudioSource
    public var warnings: [String]
    /// The upload, already placed in the artifact store (relative path).
    public var originalPath: String
    public var originalBytes: Int
    public var origin: SubmissionOrigin
    /// The app's `Recorded-At`, as claimed (stored and shown).
    public var recordedAt: Date?
    /// The instant `late` is judged at when the claim is believable (`RecordedAt.lateReference`).
    public var lateReference: Date?
    /// The speech detector's stretches of speech, for the ayah markers of the encode job.
    public var speechSegments: [SpeechSegment] = []
    /// The request's `Idempotency-Key`, answered in the admission's own transaction.
    public var idempotency: IdempotencyClaim?

    /// Creates a request.
    public init(submissionId: String, studentId: String, slot: Slot, receivedAt: Date, analysis: AudioAnalysis,
                source: AudioSource, warnings: [String], originalPath: String, originalBytes: Int, origin: SubmissionOrigin,
                recordedAt: Date? = nil, lateReference: Date? = nil) {
        self.recordedAt = recordedAt
        self.lateReference = lateReference
        self.submissionId = submissionId
        self.studentId = studentId
        self.slot = slot
        self.receivedAt = receivedAt
        self.analysis = analysis
        self.source = source
        self.warnings = warnings
        self.originalPath = originalPath
        self.originalBytes = originalBytes
        self.origin = origin
    }
}
