import Foundation
import GRDB
import TilawaCore

/// One message in the thread under a coach's reply: a student's question, or a coach's answer.
public struct CommentRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "comment"

    /// Who wrote it.
    public enum Author: String, Codable, Sendable {
        case student, coach
    }

    public var id: String
    public var feedbackId: String
    public var submissionId: String
    public var studentId: String
    public var author: Author
    /// The student's or the coach's id.
    public var authorId: String
    /// At most `CommentRecord.maximumLength` characters.
    public var text: String
    public var createdAt: Date
    /// For a student's question: when a coach answered it in the thread.
    public var answeredAt: Date?
    /// For a student's question: when it is due to be answered (the weekly turnaround).
    public var dueAt: Date?
    /// A voice clip's Ogg Opus file (`comments/YYYY/MM/<id>.opus`); nil for text only.
    public var audioPath: String?
    public var audioBytes: Int?
    /// The clip's waveform peaks JSON.
    public var waveformPath: String?
    public var durationSeconds: Double?
    /// The OpusHead output gain the clip was normalised with.
    public var outputGainDB: Double?

    /// A voice clip placed durably in the artifact store, waiting for its comment's row.
    public struct Clip: Sendable, Equatable {
        public var audioPath: String
        public var audioBytes: Int
        public var waveformPath: String
        public var durationSeconds: Double
        public var outputGainDB: Double

        public init(audioPath: String, audioBytes: Int, waveformPath: String, durationSeconds: Double, outputGainDB: Double) {
            self.audioPath = audioPath
            self.audioBytes = audioBytes
            self.waveformPath = waveformPath
            self.durationSeconds = durationSeconds
            self.outputGainDB = outputGainDB
        }
    }

    /// The clip, when the comment has one.
    public var clip: Clip? {
        guard let audioPath, let waveformPath else { return nil }
        return Clip(audioPath: audioPath, audioBytes: audioBytes ?? 0, waveformPath: waveformPath,
                    durationSeconds: durationSeconds ?? 0, outputGainDB: outputGainDB ?? 0)
    }

    /// The longest comment, in characters.
    public static let maximumLength = 2_000
}
