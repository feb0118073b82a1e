import Foundation
import TilawaStore

/// One message of the thread under a coach's reply: the `Comment` schema of openapi.yaml.
public struct CommentResource: Encodable, Sendable, Equatable {
    public var id: String
    public var feedbackId: String
    public var submissionId: String
    /// `student` (a question) or `coach` (an answer).
    public var author: String
    public var authorId: String
    public var text: String
    public var createdAt: Date
    /// For a question: when a coach answered it; null while open.
    public var answeredAt: Date?
    /// The voice clip, or null for text only.
    public var audio: Clip?

    /// A voice clip: its length, the header gain it plays at, and where to fetch it.
    public struct Clip: Encodable, Sendable, Equatable {
        public var durationSeconds: Double
        public var outputGainDB: Double
        public var links: [String: String]

        enum CodingKeys: String, CodingKey {
            case links
            case durationSeconds = "duration_seconds"
            case outputGainDB = "output_gain_db"
        }
    }

    public init(_ record: CommentRecord) {
        id = record.id
        feedbackId = record.feedbackId
        submissionId = record.submissionId
        author = record.author.rawValue
        authorId = record.authorId
        text = record.text
        createdAt = record.createdAt
        answeredAt = record.answeredAt
        audio = record.clip.map {
            Clip(durationSeconds: ($0.durationSeconds * 1_000).rounded() / 1_000, outputGainDB: $0.outputGainDB,
                 links: ["audio": "/v1/comments/\(record.id)/audio", "waveform": "/v1/comments/\(record.id)/waveform"])
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, author, text, audio
        case feedbackId, submissionId, authorId, createdAt, answeredAt
    }

    /// Encodes every member, `answered_at` as null while open.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(feedbackId, forKey: .feedbackId)
        try container.encode(submissionId, forKey: .submissionId)
        try container.encode(author, forKey: .author)
        try container.encode(authorId, forKey: .authorId)
        try container.encode(text, forKey: .text)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(answeredAt, forKey: .answeredAt)
        try container.encode(audio, forKey: .audio)
    }
}
