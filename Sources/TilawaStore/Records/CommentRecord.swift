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

    /// The longest comment, in characters.
    public static let maximumLength = 2_000
}
