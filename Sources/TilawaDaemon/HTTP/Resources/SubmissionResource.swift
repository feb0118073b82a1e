import Foundation
import TilawaCore
import TilawaStore

/// A submission as the outside world sees it (DESIGN §4): the 201 body of an upload,
/// `GET /v1/submissions/{id}`, and `tilawa ingest --json`.
public struct SubmissionResource: Encodable, Sendable, Equatable {
    /// Where to fetch the artifacts.
    public struct Links: Encodable, Sendable, Equatable {
        public var `self`: String
        public var audio: String
        public var waveform: String
        public var app: String
    }

    public var id: String
    public var studentId: String
    public var week: Int?
    public var kind: SubmissionKind
    public var state: SubmissionState
    public var receivedAt: Date
    public var late: Bool
    public var analysis: AudioAnalysis
    public var source: AudioSource
    public var warnings: [String]
    public var attempts: AttemptStatus
    public var links: Links
    /// The semester (enrolment) it belongs to.
    public var semesterId: String
    /// When the coach's answer is due.
    public var feedbackDueAt: Date
    /// The coach of its enrolment: who will reply ("This will be sent to Ustadha Maryam").
    public var coach: CoachRef?
    /// An end-of-course result, once given.
    public var result: EOCResult?
    /// The replies, newest first.
    public var feedback: [Reply]
    /// The coach's marks on the recording, in recording order (a student sees them once the reply is out).
    public var annotations: [AnnotationResource]
    /// When the app says it was recorded (`Recorded-At`), as claimed; null when not given.
    public var recordedAt: Date?
    /// When the student withdrew it; null otherwise.
    public var withdrawnAt: Date?
    /// Until when the student may still withdraw it; null when they no longer can.
    public var withdrawableUntil: Date?
    /// The passage of its week or EOC (`passage` in the timeline); null for a placement assessment.
    public var passage: String?
    /// That passage ayah by ayah, `[{surah, ayah, text}]` as on the timeline; empty when
    /// there is none (a placement assessment, a programme file without `ayahs`).
    var ayahs: [AyahResource]
    /// Why no entry of `ayahs` has times although the recording was encoded
    /// (`AlignmentRefusal` codes, or `passage_changed`); nil when they have, or before encoding.
    public var ayahsUnavailableReason: String?
    /// The playback gain (dB) the Ogg's OpusHead and the MP4's dOps carry; a player of the CAF
    /// variant, which has no place for it, applies it itself. Null until encoded.
    public var playbackGainDB: Double?

    /// A coach's id and name.
    public struct CoachRef: Encodable, Sendable, Equatable {
        public var id: String
        public var name: String
    }

    /// One reply to the submission.
    public struct Reply: Encodable, Sendable, Equatable {
        public var id: String
        public var coachName: String?
        public var receivedAt: Date
        public var notes: String?
        public var result: EOCResult?
        /// The thread under it: questions and answers, oldest first.
        public var comments: [CommentResource]
        public var links: [String: String]
    }

    /// Builds the resource from its row, the student's attempt status and the extras
    /// (assigned coach, replies).
    public init(_ record: SubmissionRecord, attempts: AttemptStatus, extras: SubmissionExtras = SubmissionExtras(),
                withdrawMinutes: Int = 10, now: Date? = nil) {
        id = record.id
        recordedAt = record.recordedAt
        withdrawnAt = record.withdrawnAt
        let until = record.receivedAt.addingTimeInterval(Double(withdrawMinutes) * 60)
        withdrawableUntil = withdrawMinutes > 0 && record.state.isSupersedable && extras.replies.isEmpty
            && now.map { $0 <= until } ?? true ? until : nil
        studentId = record.studentId
        playbackGainDB = record.outputGainDB
        week = record.week
        kind = record.kind
        state = record.state
        receivedAt = record.receivedAt
        late = record.late
        analysis = record.analysis
        source = record.source
        warnings = record.warnings
        self.attempts = attempts
        semesterId = record.semesterId
        feedbackDueAt = record.feedbackDueAt
        coach = extras.coach.map { CoachRef(id: $0.id, name: $0.name) }
        result = record.result
        passage = extras.passage
        (ayahs, ayahsUnavailableReason) = AyahResource.list(extras.ayahs, markers: record.ayahMarkers)
        feedback = extras.replies.map { reply in
            Reply(id: reply.id, coachName: extras.coachNames[reply.coachId], receivedAt: reply.receivedAt, notes: reply.notes,
                  result: reply.result, comments: (extras.comments[reply.id] ?? []).map(CommentResource.init),
                  links: ["audio": "/v1/feedback/\(reply.id)/audio", "waveform": "/v1/feedback/\(reply.id)/waveform"])
        }
        annotations = extras.annotations.map(AnnotationResource.init)
        let base = "/v1/submissions/\(record.id)"
        let app = Identifier(rawValue: record.id).map { DeepLink.submission(record.slot, id: $0).absoluteString } ?? ""
        links = Links(self: base, audio: base + "/audio", waveform: base + "/waveform", app: app)
    }

    enum CodingKeys: String, CodingKey {
        case id, week, kind, state, late, analysis, source, warnings, attempts, links, coach, result, feedback, passage, ayahs, annotations
        case ayahsUnavailableReason
        case studentId
        case receivedAt
        case semesterId
        case feedbackDueAt
        case recordedAt, withdrawnAt, withdrawableUntil
        case playbackGainDB = "playback_gain_db"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(week, forKey: .week)
        try container.encode(kind, forKey: .kind)
        try container.encode(state, forKey: .state)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(late, forKey: .late)
        try container.encode(analysis, forKey: .analysis)
        try container.encode(source, forKey: .source)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(links, forKey: .links)
        try container.encode(semesterId, forKey: .semesterId)
        try container.encode(feedbackDueAt, forKey: .feedbackDueAt)
        try container.encode(coach, forKey: .coach)
        try container.encode(result, forKey: .result)
        try container.encode(feedback, forKey: .feedback)
        try container.encode(annotations, forKey: .annotations)
        try container.encode(recordedAt, forKey: .recordedAt)
        try container.encode(withdrawnAt, forKey: .withdrawnAt)
        try container.encode(withdrawableUntil, forKey: .withdrawableUntil)
        try container.encode(playbackGainDB, forKey: .playbackGainDB)
        try container.encode(passage, forKey: .passage)
        try container.encode(ayahs, forKey: .ayahs)
        try container.encode(ayahsUnavailableReason, forKey: .ayahsUnavailableReason)
    }
}
