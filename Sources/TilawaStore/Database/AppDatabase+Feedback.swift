import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Finds the submission a reply is for and checks the coach is the student's.
    public func pairFeedback(_ target: FeedbackTarget, coachId: String) throws -> Result<SubmissionRecord, FeedbackRefusal> {
        try writer.read(Self.pairFeedbackQuery(target, coachId: coachId))
    }

    /// `pairFeedback` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func pairFeedback(_ target: FeedbackTarget, coachId: String) async throws -> Result<SubmissionRecord, FeedbackRefusal> {
        try await writer.read(Self.pairFeedbackQuery(target, coachId: coachId))
    }

    /// The transaction of `pairFeedback`, shared by its synchronous and async forms.
    static func pairFeedbackQuery(_ target: FeedbackTarget, coachId: String) -> @Sendable (Database) throws -> Result<SubmissionRecord, FeedbackRefusal> {
        { db in try Self.pair(db, target, coachId: coachId) }
    }

    static func pair(_ db: Database, _ target: FeedbackTarget, coachId: String) throws -> Result<SubmissionRecord, FeedbackRefusal> {
        let submission: SubmissionRecord
        switch target {
        case let .submission(id):
            guard let found = try SubmissionRecord.fetchOne(db, key: id) else { return .failure(.unknownSubmission(id)) }
            submission = found
        case let .slot(student, slot):
            guard try StudentRecord.fetchOne(db, key: student) != nil else { return .failure(.unknownStudent(student)) }
            var request = SubmissionRecord
                .filter(Column("studentId") == student && Column("kind") == slot.kind.rawValue)
                .filter([SubmissionState.processing.rawValue, SubmissionState.awaitingFeedback.rawValue,
                         SubmissionState.feedbackReady.rawValue].contains(Column("state")))
            if let week = slot.week { request = request.filter(Column("week") == week) }
            guard let newest = try request.order(Column("receivedAt").desc).fetchOne(db) else {
                return .failure(.noSubmission(student: student, slot: slot))
            }
            submission = newest
        }
        guard let student = try StudentRecord.fetchOne(db, key: submission.studentId) else {
            return .failure(.unknownStudent(submission.studentId))
        }
        guard student.coachId == coachId else { return .failure(.notAssignedCoach(student: student.id, coach: coachId)) }
        return .success(submission)
    }

    /// Records a reply (processing), its encode job and, for a drop-folder file, its
    /// exactly-once row — one transaction, re-checking the pairing inside it.
    public func recordFeedback(_ request: FeedbackRequest, target: FeedbackTarget) throws -> Result<(FeedbackRecord, JobRecord), FeedbackRefusal> {
        try immediateWrite { db in
            switch try Self.pair(db, target, coachId: request.coachId) {
            case let .failure(refusal):
                return .failure(refusal)
            case let .success(submission):
                let feedback = FeedbackRecord(
                    id: request.feedbackId, submissionId: submission.id, coachId: request.coachId, receivedAt: request.receivedAt,
                    notes: request.notes, analysis: request.analysis, originalPath: request.originalPath, origin: request.origin)
                try feedback.insert(db)
                var job = JobRecord(kind: .encodeFeedback, subjectId: feedback.id, now: request.receivedAt)
                try job.insert(db)
                if let drop = request.dropFile {
                    // Replaces an earlier rejection of the same content (a re-drop once the problem is fixed).
                    try DropFileRecord(sha256: drop.sha256, coachId: request.coachId, fileName: drop.fileName, outcome: "processed",
                                       reason: nil, feedbackId: feedback.id, processedAt: request.receivedAt).save(db)
                }
                return .success((feedback, job))
            }
        }
    }

    /// Records a drop-folder file that was refused, for the audit trail. Unlike a processed
    /// file, a refused one is tried again if dropped again (its problem may be fixed: the
    /// student has submitted since, the coach renamed it).
    public func recordRejectedDropFile(sha256: String, coachId: String, fileName: String, reason: String, at: Date) throws {
        try writer.write { db in
            guard try DropFileRecord.fetchOne(db, key: sha256)?.outcome != "processed" else { return }
            try DropFileRecord(sha256: sha256, coachId: coachId, fileName: fileName, outcome: "rejected", reason: reason,
                               feedbackId: nil, processedAt: at).save(db)
        }
    }

    /// The earlier outcome of a drop-folder file with this content, if any.
    public func dropFile(sha256: String) throws -> DropFileRecord? {
        try writer.read { db in try DropFileRecord.fetchOne(db, key: sha256) }
    }

    /// The reply with `id`, if any.
    public func feedback(id: String) throws -> FeedbackRecord? {
        try writer.read(Self.feedbackQuery(id: id))
    }

    /// `feedback` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func feedback(id: String) async throws -> FeedbackRecord? {
        try await writer.read(Self.feedbackQuery(id: id))
    }

    /// The transaction of `feedback`, shared by its synchronous and async forms.
    static func feedbackQuery(id: String) -> @Sendable (Database) throws -> FeedbackRecord? {
        { db in try FeedbackRecord.fetchOne(db, key: id) }
    }

    /// Replaces a reply's written notes.
    public func updateFeedbackNotes(id: String, notes: String?) throws -> FeedbackRecord? {
        try writer.write(Self.updateFeedbackNotesQuery(id: id, notes: notes))
    }

    /// `updateFeedbackNotes` from async code: suspends on GRDB's async write instead of blocking a thread of the cooperative pool.
    public func updateFeedbackNotes(id: String, notes: String?) async throws -> FeedbackRecord? {
        try await writer.write(Self.updateFeedbackNotesQuery(id: id, notes: notes))
    }

    /// The transaction of `updateFeedbackNotes`, shared by its synchronous and async forms.
    static func updateFeedbackNotesQuery(id: String, notes: String?) -> @Sendable (Database) throws -> FeedbackRecord? {
        { db in
            guard var feedback = try FeedbackRecord.fetchOne(db, key: id) else { return nil }
            feedback.notes = notes
            try feedback.update(db)
            return feedback
        }
    }

    /// Records a finished reply encode: the reply is ready, its submission `feedback_ready`,
    /// and the student gets `feedback_ready` naming the week — one transaction.
    public func completeFeedbackEncode(jobId: Int64, feedbackId: String, audioPath: String, audioBytes: Int, waveformPath: String,
                                       outputGainDB: Double, now: Date) throws {
        try immediateWrite { db in
            guard var feedback = try FeedbackRecord.fetchOne(db, key: feedbackId),
                  var submission = try SubmissionRecord.fetchOne(db, key: feedback.submissionId),
                  let student = try StudentRecord.fetchOne(db, key: submission.studentId) else {
                throw StoreError.internalInconsistency("feedback \(feedbackId) lost its submission")
            }
            feedback.audioPath = audioPath
            feedback.audioBytes = audioBytes
            feedback.waveformPath = waveformPath
            feedback.outputGainDB = outputGainDB
            feedback.state = .ready
            try feedback.update(db)
            if submission.state != .failed {
                submission.state = .feedbackReady
                try submission.update(db)
            }
            let coach = try CoachRecord.fetchOne(db, key: feedback.coachId)
            let week = try StudentContext.weekInfo(db, levelId: student.levelId, slot: submission.slot)
            let what = submission.week.map { "week \($0) (\(week.title))" } ?? week.title.lowercased()
            try Self.recordEvent(
                db, type: "feedback_ready", student: student, slot: submission.slot, occurredAt: now,
                submissionId: submission.id, feedbackId: feedback.id, coachName: coach?.name,
                message: StudentMessages.feedbackReady(what, coachName: coach?.name))
            try db.execute(sql: "UPDATE job SET state = ?, lockedBy = NULL, lastError = NULL WHERE id = ?",
                           arguments: [JobRecord.State.done.rawValue, jobId])
        }
    }

    /// Records `feedback_overdue` once for every submission still awaiting feedback after `due`.
    @discardableResult
    public func recordOverdueFeedback(now: Date, due: TimeInterval) throws -> Int {
        try immediateWrite(Self.recordOverdueFeedbackQuery(now: now, due: due))
    }

    /// `recordOverdueFeedback` from async code: suspends on GRDB's async immediateWrite instead of blocking a thread of the cooperative pool.
    public func recordOverdueFeedback(now: Date, due: TimeInterval) async throws -> Int {
        try await immediateWrite(Self.recordOverdueFeedbackQuery(now: now, due: due))
    }

    /// The transaction of `recordOverdueFeedback`, shared by its synchronous and async forms.
    static func recordOverdueFeedbackQuery(now: Date, due: TimeInterval) -> @Sendable (Database) throws -> Int {
        { db in
            let overdue = try SubmissionRecord
                .filter(Column("state") == SubmissionState.awaitingFeedback.rawValue)
                .filter(Column("overdueNotifiedAt") == nil && Column("receivedAt") < now.addingTimeInterval(-due))
                .fetchAll(db)
            for var submission in overdue {
                guard let student = try StudentRecord.fetchOne(db, key: submission.studentId) else { continue }
                let coach = try CoachRecord.fetchOne(db, key: student.coachId)
                let week = try StudentContext.weekInfo(db, levelId: student.levelId, slot: submission.slot)
                let what = submission.week.map { "week \($0) (\(week.title))" } ?? week.title.lowercased()
                try Self.recordEvent(
                    db, type: "feedback_overdue", student: student, slot: submission.slot, occurredAt: now,
                    submissionId: submission.id, feedbackId: nil, coachName: coach?.name,
                    message: StudentMessages.feedbackOverdue(what, feedbackDueHours: due / 3_600))
                submission.overdueNotifiedAt = now
                try submission.update(db)
            }
            return overdue.count
        }
    }
}

extension AppDatabase {
    /// True when a coach with `id` exists.
    public func coachExists(id: String) throws -> Bool {
        try writer.read(Self.coachExistsQuery(id: id))
    }

    /// `coachExists` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func coachExists(id: String) async throws -> Bool {
        try await writer.read(Self.coachExistsQuery(id: id))
    }

    /// The transaction of `coachExists`, shared by its synchronous and async forms.
    static func coachExistsQuery(id: String) -> @Sendable (Database) throws -> Bool {
        { db in try CoachRecord.exists(db, key: id) }
    }
}

extension AppDatabase {
    /// The enrolled id matching `id` exactly, or else ignoring case when exactly one does.
    public func resolveStudentId(_ id: String) throws -> String? {
        try writer.read { db in
            if try StudentRecord.exists(db, key: id) { return id }
            let matches = try String.fetchAll(db, sql: "SELECT id FROM student WHERE id = ? COLLATE NOCASE LIMIT 2", arguments: [id])
            return matches.count == 1 ? matches[0] : nil
        }
    }
}

extension AppDatabase {
    /// The reply `id` with its submission and coach name, in one read; nil for an unknown id.
    public func feedbackView(id: String) throws -> FeedbackView? {
        try writer.read(Self.feedbackViewQuery(id: id))
    }

    /// `feedbackView` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func feedbackView(id: String) async throws -> FeedbackView? {
        try await writer.read(Self.feedbackViewQuery(id: id))
    }

    /// The transaction of `feedbackView`, shared by its synchronous and async forms.
    static func feedbackViewQuery(id: String) -> @Sendable (Database) throws -> FeedbackView? {
        { db in
            guard let feedback = try FeedbackRecord.fetchOne(db, key: id),
                  let submission = try SubmissionRecord.fetchOne(db, key: feedback.submissionId) else { return nil }
            let name = try CoachRecord.fetchOne(db, key: feedback.coachId)?.name ?? feedback.coachId
            return FeedbackView(feedback: feedback, submission: submission, coachName: name)
        }
    }
}
