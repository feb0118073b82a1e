import Foundation
import GRDB
import TilawaCore

/// An accepted recording of a student for a slot, and where its artifacts are.
///
/// Rejected uploads are never submissions; they are `RejectionRecord`s.
public struct SubmissionRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "submission"
    public var id: String
    public var studentId: String
    public var semesterId: String
    /// The enrolment (student × semester) the submission belongs to.
    public var enrolmentId: Int64
    public var kind: SubmissionKind
    /// 1…15 for `week`, nil for `eoc` and `assessment`.
    public var week: Int?
    public var state: SubmissionState
    public var receivedAt: Date
    public var late: Bool
    public var analysis: AudioAnalysis
    public var source: AudioSource
    public var warnings: [String]
    /// The upload as received, relative to the artifacts directory; nil once pruned.
    public var originalPath: String?
    public var originalBytes: Int
    /// The Ogg Opus file, relative to the artifacts directory; nil until encoded.
    public var audioPath: String?
    public var audioBytes: Int?
    public var waveformPath: String?
    public var outputGainDB: Double?
    public var encodedAt: Date?
    public var failureReason: String?
    public var origin: SubmissionOrigin
    /// When `feedback_overdue` was recorded for this submission (once).
    public var overdueNotifiedAt: Date?
    /// When the coach's answer is due (weekly hours, EOC business days, placement hours).
    public var feedbackDueAt: Date
    /// For an answered end-of-course assessment, the coach's result.
    public var result: EOCResult?
    /// The newer recording that superseded this one (restored if that one fails).
    public var supersededBy: String?
    /// When the student withdrew it.
    public var withdrawnAt: Date?
    /// When the app says it was recorded (`Recorded-At`, an offline recording); as claimed.
    public var recordedAt: Date?
    /// The speech detector's stretches of speech from the judging pass; nil for rows from
    /// before they were kept.
    public var speechSegments: [SpeechSegment]? = nil
    /// Where the ayahs of its passage are in the recording, once encoded; nil before.
    public var ayahMarkers: AyahMarkers? = nil
    /// The back-office grant this recording used because the attempt window was full (DESIGN §11).
    public var grantId: String? = nil
    /// The level the recording was recited for (`week`, `eoc`): kept when the enrolment's level changes.
    public var levelId: String? = nil
    /// The week's (or end-of-course) title as it was when recorded.
    public var title: String? = nil

    /// The slot this submission is for.
    public var slot: Slot {
        switch kind {
        case .week: .week(week ?? 0)
        case .eoc: .eoc
        case .assessment: .assessment
        }
    }

    /// The value the rules reason about.
    public func accepted() throws -> AcceptedSubmission {
        guard let identifier = Identifier(rawValue: id) else {
            throw StoreError.internalInconsistency("submission id \(id) is not a valid identifier")
        }
        return AcceptedSubmission(id: identifier, slot: slot, receivedAt: receivedAt, state: state, result: result, usesGrant: grantId != nil)
    }
}
