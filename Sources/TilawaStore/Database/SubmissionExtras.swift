import Foundation
import GRDB
import TilawaCore

/// What a submission's resource shows beside the row: the coach of its enrolment (who will
/// reply) and the replies it has, with their coaches' names.
public struct SubmissionExtras: Sendable {
    public var coach: CoachRecord?
    public var replies: [FeedbackRecord]
    public var coachNames: [String: String]
    /// The threads under the replies, by reply id, oldest first.
    public var comments: [String: [CommentRecord]]
    /// The coach's marks on the recording, in recording order (`at_seconds`).
    public var annotations: [AnnotationRecord]

    public init(coach: CoachRecord? = nil, replies: [FeedbackRecord] = [], coachNames: [String: String] = [:],
                comments: [String: [CommentRecord]] = [:], annotations: [AnnotationRecord] = []) {
        self.coach = coach
        self.replies = replies
        self.coachNames = coachNames
        self.comments = comments
        self.annotations = annotations
    }
}

extension AppDatabase {
    /// The extras of `submission`, in one read.
    public func submissionExtras(_ submission: SubmissionRecord) throws -> SubmissionExtras {
        try writer.read(Self.submissionExtrasQuery(submission))
    }

    /// `submissionExtras` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func submissionExtras(_ submission: SubmissionRecord) async throws -> SubmissionExtras {
        try await writer.read(Self.submissionExtrasQuery(submission))
    }

    /// The transaction of `submissionExtras`, shared by its synchronous and async forms.
    static func submissionExtrasQuery(_ submission: SubmissionRecord) -> @Sendable (Database) throws -> SubmissionExtras {
        { db in
            let coach = try CoachRecord.fetchOne(db, sql: """
                SELECT coach.* FROM coach JOIN enrolment ON enrolment.coachId = coach.id WHERE enrolment.id = ?
                """, arguments: [submission.enrolmentId])
            let replies = try FeedbackRecord.filter(Column("submissionId") == submission.id && Column("state") == "ready")
                .order(Column("receivedAt").desc).fetchAll(db)
            let names = try Row.fetchAll(db, sql: """
                SELECT id, name FROM coach WHERE id IN (SELECT coachId FROM feedback WHERE submissionId = ?)
                """, arguments: [submission.id])
            let comments = Dictionary(grouping: try CommentRecord.filter(Column("submissionId") == submission.id)
                .order(Column("createdAt")).fetchAll(db), by: \.feedbackId)
            let annotations = try Self.annotations(db, submissionIds: [submission.id], sentOnly: false)[submission.id] ?? []
            return SubmissionExtras(coach: coach, replies: replies,
                                    coachNames: Dictionary(names.map { ($0["id"], $0["name"]) }, uniquingKeysWith: { first, _ in first }),
                                    comments: comments, annotations: annotations)
        }
    }
}
