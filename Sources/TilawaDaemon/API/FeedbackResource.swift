import Foundation
import TilawaStore

/// A coach's reply as the API shows it (`POST …/feedback`, `PATCH /v1/feedback/{id}`).
public struct FeedbackResource: Encodable, Sendable {
    public var id: String
    public var submissionId: String
    public var coachId: String
    public var state: String
    public var receivedAt: Date
    public var notes: String?
    public var durationSeconds: Double
    public var links: [String: String]

    public init(_ record: FeedbackRecord) {
        id = record.id
        submissionId = record.submissionId
        coachId = record.coachId
        state = record.state.rawValue
        receivedAt = record.receivedAt
        notes = record.notes
        durationSeconds = record.analysis.durationSeconds
        links = ["audio": "/v1/feedback/\(record.id)/audio", "waveform": "/v1/feedback/\(record.id)/waveform",
                 "submission": "/v1/submissions/\(record.submissionId)"]
    }

    enum CodingKeys: String, CodingKey {
        case id, state, notes, links
        case submissionId = "submission_id"
        case coachId = "coach_id"
        case receivedAt = "received_at"
        case durationSeconds = "duration_seconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(submissionId, forKey: .submissionId)
        try container.encode(coachId, forKey: .coachId)
        try container.encode(state, forKey: .state)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(notes, forKey: .notes)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try container.encode(links, forKey: .links)
    }
}
