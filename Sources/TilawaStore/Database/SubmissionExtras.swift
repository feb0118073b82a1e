import Foundation
import GRDB
import TilawaCore

/// What a submission's resource shows beside the row: the coach of its enrolment (who will
/// reply), the replies it has, with their coaches' names, and the passage it recites.
public struct SubmissionExtras: Sendable {
    public var coach: CoachRecord?
    public var replies: [FeedbackRecord]
    public var coachNames: [String: String]
    /// The threads under the replies, by reply id, oldest first.
    public var comments: [String: [CommentRecord]]
    /// The passage of its week (or its level's EOC) in the curriculum of its enrolment's
    /// level, as the timeline shows it; nil for a placement assessment or before placement.
    public var passage: String?
    /// That passage's ayah ranges as stored (`1:1-7; 114:1-6`); nil when there are none.
    public var ayahs: String?
    /// The coach's marks on the recording, in recording order (`at_seconds`).
    public var annotations: [AnnotationRecord]

    public init(coach: CoachRecord? = nil, replies: [FeedbackRecord] = [], coachNames: [String: String] = [:],
                comments: [String: [CommentRecord]] = [:], passage: String? = nil, ayahs: String? = nil,
                annotations: [AnnotationRecord] = []) {
        self.coach = coach
        self.replies = replies
        self.coachNames = coachNames
        self.comments = comments
        self.passage = passage
        self.ayahs = ayahs
        self.annotations = annotations
    }
}

extension AppDatabase {
    /// The extras of `submission`, in one read.
    public func submissionExtras(_ submission: SubmissionRecord) throws -> SubmissionExtras {
        try engine.read(Self.submissionExtrasQuery(submission))
    }

    /// `submissionExtras` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func submissionExtras(_ submission: SubmissionRecord) async throws -> SubmissionExtras {
        try await engine.read(Self.submissionExtrasQuery(submission))
    }

    /// The transaction of `submissionExtras`, shared by its synchronous and async forms.
    static func submissionExtrasQuery(_ submission: SubmissionRecord) -> @Sendable (SQLSession) throws -> SubmissionExtras {
        { db in
            let coach = try CoachRecord.fetchOne(db, sql: """
                SELECT coach.* FROM coach JOIN enrolment ON enrolment.coachId = coach.id WHERE enrolment.id = ?
                """, arguments: [submission.enrolmentId])
            let replies = try FeedbackRecord.fetchAll(db, where: "submissionId = ? AND state = 'ready'", [submission.id],
                                                      orderBy: "receivedAt DESC")
            let names = try Row.fetchAll(db, sql: """
                SELECT id, name FROM coach WHERE id IN (SELECT coachId FROM feedback WHERE submissionId = ?)
                """, arguments: [submission.id])
            let comments = Dictionary(grouping: try CommentRecord.fetchAll(db, where: "submissionId = ?", [submission.id], orderBy: "createdAt, rowid"),
                                      by: \.feedbackId)
            let annotations = try Self.annotations(db, submissionIds: [submission.id], sentOnly: false)[submission.id] ?? []
            // The curriculum as it is now, like the timeline's weeks: a re-imported passage shows on both.
            let passage: Row? = switch submission.kind {
            case .week:
                try Row.fetchOne(db, sql: """
                    SELECT curriculumWeek.passage, curriculumWeek.ayahs FROM curriculumWeek
                    JOIN enrolment ON enrolment.levelId = curriculumWeek.levelId
                    WHERE enrolment.id = ? AND curriculumWeek.week = ?
                    """, arguments: [submission.enrolmentId, submission.week])
            case .eoc:
                try Row.fetchOne(db, sql: """
                    SELECT level.eocPassage AS passage, level.eocAyahs AS ayahs FROM level
                    JOIN enrolment ON enrolment.levelId = level.id WHERE enrolment.id = ?
                    """, arguments: [submission.enrolmentId])
            case .assessment:
                nil
            }
            return SubmissionExtras(coach: coach, replies: replies,
                                    coachNames: Dictionary(names.map { ($0["id"], $0["name"]) }, uniquingKeysWith: { first, _ in first }),
                                    comments: comments, passage: passage?["passage"], ayahs: passage?["ayahs"], annotations: annotations)
        }
    }
}
