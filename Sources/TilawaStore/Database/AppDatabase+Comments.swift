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

    /// The migration "feedback: voice questions": a comment may carry a voice clip (1 s to
    /// 3 min, encoded like every recording); its bytes count in the artifact total. Never
    /// edited once landed.
    static func migrateCommentClips(_ db: Database) throws {
        try db.alter(table: "comment") { t in
            t.add(column: "audioPath", .text)
            t.add(column: "audioBytes", .integer)
            t.add(column: "waveformPath", .text)
            t.add(column: "durationSeconds", .double)
            t.add(column: "outputGainDB", .double)
        }
        // Comments are never updated or deleted with their clip; these keep the total right if one ever is.
        let bytes = { (row: String) in "(CASE WHEN \(row).audioPath IS NULL THEN 0 ELSE COALESCE(\(row).audioBytes, 0) END)" }
        try db.execute(sql: """
            CREATE TRIGGER comment_artifact_bytes_insert AFTER INSERT ON comment
            WHEN \(bytes("NEW")) <> 0 BEGIN UPDATE meta SET value = value + \(bytes("NEW")) WHERE key = '\(artifactBytesKey)'; END;
            CREATE TRIGGER comment_artifact_bytes_update AFTER UPDATE OF audioPath, audioBytes ON comment
            WHEN \(bytes("NEW")) <> \(bytes("OLD"))
            BEGIN UPDATE meta SET value = value + \(bytes("NEW")) - \(bytes("OLD")) WHERE key = '\(artifactBytesKey)'; END;
            CREATE TRIGGER comment_artifact_bytes_delete AFTER DELETE ON comment
            WHEN \(bytes("OLD")) <> 0 BEGIN UPDATE meta SET value = value - \(bytes("OLD")) WHERE key = '\(artifactBytesKey)'; END;
            """)
    }

    /// The migration "feedback: comments by author": the per-author comment limit counts an
    /// author's comments of the last minute on every comment. Never edited once landed.
    static func migrateCommentAuthors(_ db: Database) throws {
        try db.create(index: "comment_author_created", on: "comment", columns: ["authorId", "author", "createdAt"])
    }

    /// Why a comment cannot be added.
    public enum CommentRefusal: Error, Sendable, Equatable {
        /// The reply does not exist or may not be reached by this author (answered as not found).
        case notFound
        /// The reply is still being encoded.
        case notReady
        /// The author has written `limit` comments in the last `commentWindow`; the next one is
        /// allowed at `retryAt`.
        case tooManyComments(limit: Int, retryAt: Date)

        public var code: String {
            switch self {
            case .notFound: "not_found"
            case .notReady: "not_ready"
            case .tooManyComments: "too_many_comments"
            }
        }
    }

    /// The window of the per-author comment limit (`comments.max_per_minute`): a minute.
    public static let commentWindow: TimeInterval = 60

    /// `tooManyComments` when `authorId` (as `author`) has written `limit` or more comments
    /// in the `commentWindow` before `now`, every thread counted, from the table itself — so a
    /// restart does not reset it, and inside `addComment`'s write transaction it is exact
    /// however many requests race. The next comment is allowed once the `limit`-th newest
    /// leaves the window (with the limit kept, that is the oldest in it). Nil `limit`, or 0:
    /// no limit.
    static func commentRateRefusal(
        _ db: SQLSession, author: CommentRecord.Author, authorId: String, limit: Int?, now: Date
    ) throws -> CommentRefusal? {
        guard let limit, limit > 0 else { return nil }
        let recent = try Date.fetchAll(db, sql: """
            SELECT createdAt FROM comment WHERE authorId = ? AND author = ? AND createdAt > ?
            ORDER BY createdAt DESC LIMIT ?
            """, arguments: [authorId, author.rawValue, now.addingTimeInterval(-commentWindow), limit])
        guard recent.count >= limit, let leaving = recent.last else { return nil }
        return .tooManyComments(limit: limit, retryAt: leaving.addingTimeInterval(commentWindow))
    }

    /// The reply, its submission and enrolment, when `author` may write in its thread: a
    /// student under their own reply, a coach who may answer the submission; the reply ready.
    static func commentTarget(
        _ db: SQLSession, feedbackId: String, author: CommentRecord.Author, authorId: String, now: Date
    ) throws -> Result<(FeedbackRecord, SubmissionRecord, EnrolmentRecord), CommentRefusal> {
        guard let feedback = try FeedbackRecord.fetchOne(db, key: feedbackId),
              let submission = try SubmissionRecord.fetchOne(db, key: feedback.submissionId),
              let enrolment = try EnrolmentRecord.fetchOne(db, key: submission.enrolmentId) else { return .failure(.notFound) }
        switch author {
        case .student: guard submission.studentId == authorId else { return .failure(.notFound) }
        case .coach: guard try Self.mayAnswer(db, submission: submission, coachId: authorId, now: now) else { return .failure(.notFound) }
        }
        guard feedback.state == .ready, submission.state.countsAsAccepted else { return .failure(.notReady) }
        return .success((feedback, submission, enrolment))
    }

    /// `tooManyComments` when `authorId` is at the per-author limit at `now`: the cheap check
    /// made before a comment's body is read. `addComment` checks again, atomically with its insert.
    public func commentRateRefusal(author: CommentRecord.Author, authorId: String, maxPerMinute: Int?, now: Date) async throws
        -> CommentRefusal? {
        try await engine.read { db in
            try Self.commentRateRefusal(db, author: author, authorId: authorId, limit: maxPerMinute, now: now)
        }
    }

    /// Whether `author` may write in reply `feedbackId`'s thread now: asked before a voice
    /// clip's body is read, so a refused one costs nothing. `addComment` checks again.
    public func commentRefusal(feedbackId: String, author: CommentRecord.Author, authorId: String, now: Date) async throws -> CommentRefusal? {
        try await engine.read { db in
            if case let .failure(refusal) = try Self.commentTarget(db, feedbackId: feedbackId, author: author, authorId: authorId, now: now) {
                return refusal
            }
            return nil
        }
    }

    /// Adds a comment to the thread under reply `feedbackId`: a student's question (their own
    /// reply only; the coach of the enrolment gets `question_asked`, due within the weekly
    /// turnaround) or a coach's answer (a coach who may answer the submission; every open
    /// question of the thread is answered, and the student gets `question_answered`) — one
    /// transaction. `text` may be empty when a voice `clip` (already placed durably) comes with it.
    /// With `maxPerMinute`, an author who has written that many comments in the last minute
    /// is refused `tooManyComments`, counted in the same write transaction as the insert and
    /// under the author's lock, so concurrent requests (on any node) never get past the limit
    /// together — and on PostgreSQL wait their turn rather than fail each other's snapshots.
    public func addComment(
        feedbackId: String, author: CommentRecord.Author, authorId: String, text: String, clip: CommentRecord.Clip? = nil,
        maxPerMinute: Int? = nil, policy: ProgramPolicy, now: Date
    ) async throws -> Result<CommentRecord, CommentRefusal> {
        try await engine.lockedWrite(.quota("comments:\(author.rawValue):\(authorId)")) { db in
            let (feedback, submission, enrolment): (FeedbackRecord, SubmissionRecord, EnrolmentRecord)
            switch try Self.commentTarget(db, feedbackId: feedbackId, author: author, authorId: authorId, now: now) {
            case let .success(target): (feedback, submission, enrolment) = target
            case let .failure(refusal): return .failure(refusal)
            }
            if let refusal = try Self.commentRateRefusal(db, author: author, authorId: authorId, limit: maxPerMinute, now: now) {
                return .failure(refusal)
            }
            let comment = CommentRecord(
                id: IdentifierGenerator.make("cm", now: now), feedbackId: feedback.id, submissionId: submission.id,
                studentId: submission.studentId, author: author, authorId: authorId, text: text, createdAt: now, answeredAt: nil,
                dueAt: author == .student ? now.addingTimeInterval(policy.feedbackDueHours * 3_600) : nil,
                audioPath: clip?.audioPath, audioBytes: clip?.audioBytes, waveformPath: clip?.waveformPath,
                durationSeconds: clip?.durationSeconds, outputGainDB: clip?.outputGainDB)
            try comment.insert(db)
            let week = try StudentContext.weekInfo(db, levelId: enrolment.levelId, slot: submission.slot)
            switch author {
            case .student:
                // `recordEvent` hands it to the covering coach while a cover runs.
                let coachId = enrolment.coachId ?? feedback.coachId
                let student = try StudentRecord.fetchOne(db, key: submission.studentId)?.name ?? submission.studentId
                try Self.recordEvent(
                    db, type: .questionAsked, studentId: submission.studentId, levelId: enrolment.levelId, slot: submission.slot,
                    occurredAt: now, submissionId: submission.id, feedbackId: feedback.id, coachName: nil,
                    message: StaffMessages.questionAsked(student: student, week: submission.week, title: week.title, text: text,
                                                         clipSeconds: clip?.durationSeconds),
                    recipient: .coach(coachId))
            case .coach:
                try db.execute(sql: """
                    UPDATE comment SET answeredAt = ? WHERE feedbackId = ? AND author = 'student' AND answeredAt IS NULL
                    """, arguments: [now, feedback.id])
                let coach = try CoachRecord.fetchOne(db, key: authorId)
                try Self.recordEvent(
                    db, type: .questionAnswered, studentId: submission.studentId, levelId: enrolment.levelId, slot: submission.slot,
                    occurredAt: now, submissionId: submission.id, feedbackId: feedback.id, coachName: coach?.name,
                    message: StudentMessages.questionAnswered(coachName: coach?.name, week: submission.week, title: week.title, text: text,
                                                              clipSeconds: clip?.durationSeconds))
            }
            return .success(comment)
        }
    }

    /// One comment, or nil.
    public func comment(id: String) async throws -> CommentRecord? {
        try await engine.read { db in try CommentRecord.fetchOne(db, key: id) }
    }

    /// The threads under these replies, oldest first, by reply id: the comments written on the
    /// recording each reply answers now (a reply moved to another recording leaves the first
    /// student's questions with them, and starts a thread of the new student's own).
    public func comments(feedbackIds: [String]) async throws -> [String: [CommentRecord]] {
        guard !feedbackIds.isEmpty else { return [:] }
        return try await engine.read { db in
            let answering = Dictionary(
                try Row.fetchAll(db, sql: "SELECT id, submissionId FROM feedback WHERE \(SQLArguments.inList("id", count: feedbackIds.count))",
                                 arguments: SQLArguments(feedbackIds)).map { ($0["id"] as String, $0["submissionId"] as String) },
                uniquingKeysWith: { first, _ in first })
            let comments = try CommentRecord.fetchAll(db, where: SQLArguments.inList("feedbackId", count: feedbackIds.count),
                                                      SQLArguments(feedbackIds), orderBy: "createdAt, rowid")
            return Dictionary(grouping: comments.filter { answering[$0.feedbackId] == $0.submissionId }, by: \.feedbackId)
        }
    }

    /// Whether the enrolment (`enrolment.coachId`) is answered by the coach `:coach` at `:now`:
    /// their own unless another coach covers them then, and the enrolments of the coaches they
    /// cover then (DESIGN §11). Shared by the open questions and the coach's digest.
    static let answeredByCoachSQL = """
        ((enrolment.coachId = :coach AND NOT EXISTS (SELECT 1 FROM coachCover
            WHERE coachCover.coachId = :coach AND startsAt <= :now AND until > :now))
        OR enrolment.coachId IN (SELECT coachCover.coachId FROM coachCover
            WHERE coveringCoachId = :coach AND startsAt <= :now AND until > :now))
        """

    /// Students' questions not answered yet that `coachId` may answer at `now`, oldest first:
    /// those of their own students unless another coach covers them now, and those of the
    /// coaches they cover now (DESIGN §11) — as the queue's recordings.
    public func openQuestions(coachId: String, now: Date) async throws -> [OpenQuestion] {
        try await engine.read { db in
            try Row.fetchAll(db, sql: """
                SELECT comment.*, student.name AS studentName, submission.week AS submissionWeek, submission.kind AS submissionKind
                FROM comment JOIN submission ON submission.id = comment.submissionId
                JOIN enrolment ON enrolment.id = submission.enrolmentId
                JOIN student ON student.id = submission.studentId
                WHERE comment.author = 'student' AND comment.answeredAt IS NULL AND \(Self.answeredByCoachSQL)
                ORDER BY comment.createdAt
                """, arguments: ["coach": coachId, "now": now]).map { row in
                OpenQuestion(comment: try CommentRecord(row: row), studentName: row["studentName"], week: row["submissionWeek"],
                             kind: SubmissionKind(rawValue: row["submissionKind"] ?? "") ?? .week)
            }
        }
    }
}

/// A student's question waiting for its coach, with whose recording it is about.
public struct OpenQuestion: Sendable {
    public var comment: CommentRecord
    public var studentName: String
    public var week: Int?
    public var kind: SubmissionKind
}
