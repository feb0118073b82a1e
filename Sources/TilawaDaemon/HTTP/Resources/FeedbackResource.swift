import Foundation
import TilawaCore
import TilawaStore

/// A coach's reply as the API shows it (`POST …/feedback`, `PATCH /v1/feedback/{id}`): the
/// `Feedback` schema of openapi/openapi.yaml.
public struct FeedbackResource: Encodable, Sendable {
    public var id: String
    public var submissionId: String
    public var studentId: String
    public var coachId: String
    public var coachName: String
    public var week: Int?
    public var kind: SubmissionKind
    public var state: String
    public var receivedAt: Date
    public var notes: String?
    /// The end-of-course result this reply gives (EOC replies only).
    public var result: EOCResult?
    public var durationSeconds: Double
    public var analysis: AudioAnalysis
    public var links: [String: String]

    public init(_ view: FeedbackView) {
        let record = view.feedback
        id = record.id
        submissionId = record.submissionId
        studentId = view.submission.studentId
        coachId = record.coachId
        coachName = view.coachName
        week = view.submission.week
        kind = view.submission.kind
        state = record.state.rawValue
        receivedAt = record.receivedAt
        notes = record.notes
        result = record.result
        durationSeconds = record.analysis.durationSeconds
        analysis = record.analysis
        links = ["audio": "/v1/feedback/\(record.id)/audio", "waveform": "/v1/feedback/\(record.id)/waveform",
                 "submission": "/v1/submissions/\(record.submissionId)"]
        if let feedbackId = Identifier(rawValue: record.id) {
            links["app"] = DeepLink.feedback(view.submission.slot, id: feedbackId).absoluteString
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, week, kind, state, notes, analysis, links, result
        case submissionId
        case studentId
        case coachId
        case coachName
        case receivedAt
        case durationSeconds
    }

    /// Encodes every member, absent values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(submissionId, forKey: .submissionId)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(coachId, forKey: .coachId)
        try container.encode(coachName, forKey: .coachName)
        try container.encode(week, forKey: .week)
        try container.encode(kind, forKey: .kind)
        try container.encode(state, forKey: .state)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(notes, forKey: .notes)
        try container.encode(result, forKey: .result)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try container.encode(analysis, forKey: .analysis)
        try container.encode(links, forKey: .links)
    }
}
