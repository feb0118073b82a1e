import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The migration "feedback: questions": the thread under each reply. Never edited once landed.
    static func migrateComments(_ db: Database) throws {
        try db.create(table: "comment") { t in
            t.primaryKey("id", .text)
            t.column("feedbackId", .text).notNull().references("feedback").indexed()
            t.column("submissionId", .text).notNull()
            t.column("studentId", .text).notNull()
            t.column("author", .text).notNull()
            t.column("authorId", .text).notNull()
            t.column("text", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("answeredAt", .datetime)
            t.column("dueAt", .datetime)
        }
        // Open questions: the queue and status count them.
        try db.create(index: "comment_open", on: "comment", columns: ["author", "answeredAt", "dueAt"])
    }

    /// Why a comment cannot be added.
    public enum CommentRefusal: Error, Sendable, Equatable {
        /// The reply does not exist or may not be reached by this author (answered as not found).
        case notFound
        /// The reply is still being encoded.
        case notReady

        public var code: String {
            switch self {
            case .notFound: "not_found"
            case .notReady: "not_ready"
            }
        }
    }

    /// Adds a comment to the thread under reply `feedbackId`: a student's question (their own
    /// reply only; the coach of the enrolment gets `question_asked`, due within the weekly
    /// turnaround) or a coach's answer (a coach who may answer the submission; every open
    /// question of the thread is answered, and the student gets `question_answered`) — one
    /// transaction.
    public func addComment(
        feedbackId: String, author: CommentRecord.Author, authorId: String, text: String, policy: ProgramPolicy, now: Date
    ) async throws -> Result<CommentRecord, CommentRefusal> {
        try await immediateWrite { db in
            guard let feedback = try FeedbackRecord.fetchOne(db, key: feedbackId),
                  let submission = try SubmissionRecord.fetchOne(db, key: feedback.submissionId),
                  let enrolment = try EnrolmentRecord.fetchOne(db, key: submission.enrolmentId) else { return .failure(.notFound) }
            switch author {
            case .student: guard submission.studentId == authorId else { return .failure(.notFound) }
            case .coach: guard try Self.mayAnswer(db, submission: submission, coachId: authorId) else { return .failure(.notFound) }
            }
            guard feedback.state == .ready else { return .failure(.notReady) }
            let comment = CommentRecord(
                id: IdentifierGenerator.make("cm", now: now), feedbackId: feedback.id, submissionId: submission.id,
                studentId: submission.studentId, author: author, authorId: authorId, text: text, createdAt: now, answeredAt: nil,
                dueAt: author == .student ? now.addingTimeInterval(policy.feedbackDueHours * 3_600) : nil)
            try comment.insert(db)
            let week = try StudentContext.weekInfo(db, levelId: enrolment.levelId, slot: submission.slot)
            let what = submission.week.map { "week \($0) (\(week.title))" } ?? week.title.lowercased()
            let excerpt = text.count > 120 ? String(text.prefix(120)) + "…" : text
            switch author {
            case .student:
                let coachId = enrolment.coachId ?? feedback.coachId
                let student = try StudentRecord.fetchOne(db, key: submission.studentId)?.name ?? submission.studentId
                try Self.recordEvent(
                    db, type: .questionAsked, studentId: submission.studentId, levelId: enrolment.levelId, slot: submission.slot,
                    occurredAt: now, submissionId: submission.id, feedbackId: feedback.id, coachName: nil,
                    message: "\(student) asked about your reply to their recording for \(what): “\(excerpt)”", recipient: .coach(coachId))
            case .coach:
                try db.execute(sql: """
                    UPDATE comment SET answeredAt = ? WHERE feedbackId = ? AND author = 'student' AND answeredAt IS NULL
                    """, arguments: [now, feedback.id])
                let coach = try CoachRecord.fetchOne(db, key: authorId)
                try Self.recordEvent(
                    db, type: .questionAnswered, studentId: submission.studentId, levelId: enrolment.levelId, slot: submission.slot,
                    occurredAt: now, submissionId: submission.id, feedbackId: feedback.id, coachName: coach?.name,
                    message: "\(coach?.name ?? "Your coach") answered your question about \(what): “\(excerpt)”")
            }
            return .success(comment)
        }
    }

    /// The threads under these replies, oldest first, by reply id.
    public func comments(feedbackIds: [String]) async throws -> [String: [CommentRecord]] {
        guard !feedbackIds.isEmpty else { return [:] }
        return try await writer.read { db in
            Dictionary(grouping: try CommentRecord.filter(feedbackIds.contains(Column("feedbackId"))).order(Column("createdAt")).fetchAll(db),
                       by: \.feedbackId)
        }
    }

    /// Students' questions not answered yet that `coachId` may answer, oldest first.
    public func openQuestions(coachId: String) async throws -> [CommentRecord] {
        try await writer.read { db in
            try CommentRecord.fetchAll(db, sql: """
                SELECT comment.* FROM comment JOIN submission ON submission.id = comment.submissionId
                JOIN enrolment ON enrolment.id = submission.enrolmentId
                WHERE comment.author = 'student' AND comment.answeredAt IS NULL AND enrolment.coachId = ?
                ORDER BY comment.createdAt
                """, arguments: [coachId])
        }
    }
}
