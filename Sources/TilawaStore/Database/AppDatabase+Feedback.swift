import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Finds the submission a reply is for and checks the coach is the student's.
    public func pairFeedback(_ target: FeedbackTarget, coachId: String, now: Date) throws -> Result<SubmissionRecord, FeedbackRefusal> {
        try engine.read(Self.pairFeedbackQuery(target, coachId: coachId, now: now))
    }

    /// `pairFeedback` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func pairFeedback(_ target: FeedbackTarget, coachId: String, now: Date) async throws -> Result<SubmissionRecord, FeedbackRefusal> {
        try await engine.read(Self.pairFeedbackQuery(target, coachId: coachId, now: now))
    }

    /// The transaction of `pairFeedback`, shared by its synchronous and async forms.
    static func pairFeedbackQuery(_ target: FeedbackTarget, coachId: String, now: Date) -> @Sendable (SQLSession) throws -> Result<SubmissionRecord, FeedbackRefusal> {
        { db in try Self.pair(db, target, coachId: coachId, now: now) }
    }

    /// The submission a reply is for, and the check that `coachId` may answer it: the coach
    /// of the submission's enrolment, unless covered at `now`, or the coach covering them; for a
    /// placement assessment also a placing coach.
    ///
    /// By slot (drop folder, CLI): among the student's recordings for that slot awaiting a
    /// reply, the newest of the newest enrolment that has one (fall's EOC reply may arrive
    /// after spring's roster import); when none awaits, only the newest enrolment's newest
    /// recording of the slot (a second reply) — an older semester is answered by id.
    static func pair(_ db: SQLSession, _ target: FeedbackTarget, coachId: String, now: Date) throws -> Result<SubmissionRecord, FeedbackRefusal> {
        let submission: SubmissionRecord
        switch target {
        case let .submission(id):
            // An erased student's recordings are gone for everyone, as if they never were.
            guard let found = try SubmissionRecord.fetchOne(db, key: id), try !isErased(db, studentId: found.studentId) else {
                return .failure(.unknownSubmission(id))
            }
            submission = found
            // Checked after the coach's right to see it, below: a stranger learns nothing.
            if !found.state.countsAsAccepted, try mayAnswer(db, submission: found, coachId: coachId, now: now) {
                return .failure(.notAnswerable(id: id, state: found.state))
            }
        case let .slot(student, slot):
            guard let record = try StudentRecord.fetchOne(db, key: student), record.erasedAt == nil else {
                return .failure(.unknownStudent(student))
            }
            guard let found = try pairBySlot(db, student: student, slot: slot) else {
                return .failure(.noSubmission(student: student, slot: slot))
            }
            submission = found
        }
        guard try mayAnswer(db, submission: submission, coachId: coachId, now: now) else {
            return .failure(.notAssignedCoach(student: submission.studentId, coach: coachId))
        }
        return .success(submission)
    }

    private static func pairBySlot(_ db: SQLSession, student: String, slot: Slot) throws -> SubmissionRecord? {
        var sql = """
            SELECT submission.* FROM submission
            JOIN enrolment ON enrolment.id = submission.enrolmentId
            JOIN semester ON semester.id = enrolment.semesterId
            WHERE submission.studentId = ? AND submission.kind = ? AND submission.state IN (?, ?, ?)
            """
        var arguments: SQLArguments = [student, slot.kind.rawValue, SubmissionState.processing.rawValue,
                                             SubmissionState.awaitingFeedback.rawValue, SubmissionState.feedbackReady.rawValue]
        if let week = slot.week {
            sql += " AND submission.week = ?"
            arguments += [week]
        }
        sql += " ORDER BY semester.startDate DESC, submission.receivedAt DESC"
        let candidates = try SubmissionRecord.fetchAll(db, sql: sql, arguments: arguments)
        if let awaiting = candidates.first(where: { $0.state != .feedbackReady }) { return awaiting }
        let newestEnrolment = try Int64.fetchOne(db, sql: """
            SELECT enrolment.id FROM enrolment JOIN semester ON semester.id = enrolment.semesterId
            WHERE enrolment.studentId = ? ORDER BY semester.startDate DESC, enrolment.id DESC LIMIT 1
            """, arguments: [student])
        // A placement assessment is the student's, whatever the semester.
        return candidates.first { slot == .assessment || $0.enrolmentId == newestEnrolment }
    }

    /// Whether `coachId` may answer (and read) `submission`.
    static func mayAnswer(_ db: SQLSession, submission: SubmissionRecord, coachId: String, now: Date) throws -> Bool {
        if let coach = try String.fetchOne(db, sql: "SELECT coachId FROM enrolment WHERE id = ?", arguments: [submission.enrolmentId]) {
            // A coach under cover hands their students to the covering coach until it ends.
            let covering = try coveringCoach(db, of: coach, at: now)
            if covering == nil ? coach == coachId : covering == coachId { return true }
        }
        guard submission.kind == .assessment else { return false }
        return try mayPlace(db, coachId: coachId)
    }

    /// Whether `coachId` may place students: a coach `program.yaml` lists as placing, or
    /// any coach when it lists none.
    static func mayPlace(_ db: SQLSession, coachId: String) throws -> Bool {
        guard let coach = try CoachRecord.fetchOne(db, key: coachId) else { return false }
        if coach.placing { return true }
        return try CoachRecord.fetchCount(db, where: "\"placing\" = 1") == 0
    }

    /// Records a reply (processing), its encode job and, for a drop-folder file, its
    /// exactly-once row — one transaction, re-checking the pairing inside it.
    ///
    /// A drop-folder file already recorded as processed answers with the reply it made (its
    /// id differs from `request.feedbackId`: the caller drops what it placed for this one).
    /// The watcher's duty makes that rare — another node took the same file while this one
    /// worked on it, its session ended under it — and the transaction makes it harmless.
    public func recordFeedback(_ request: FeedbackRequest, target: FeedbackTarget) throws -> Result<(FeedbackRecord, JobRecord), FeedbackRefusal> {
        try immediateWrite { db in
            if let drop = request.dropFile, let earlier = try DropFileRecord.fetchOne(db, key: drop.sha256), earlier.outcome == "processed",
               let feedbackId = earlier.feedbackId, let feedback = try FeedbackRecord.fetchOne(db, key: feedbackId),
               let job = try JobRecord.fetchOne(db, sql: "SELECT * FROM job WHERE subjectId = ? ORDER BY id LIMIT 1", arguments: [feedbackId]) {
                return .success((feedback, job))
            }
            switch try Self.pair(db, target, coachId: request.coachId, now: request.receivedAt) {
            case let .failure(refusal):
                return .failure(refusal)
            case let .success(submission):
                if let refusal = FeedbackRefusal.result(request.result, for: submission) { return .failure(refusal) }
                let feedback = FeedbackRecord(
                    id: request.feedbackId, submissionId: submission.id, coachId: request.coachId, receivedAt: request.receivedAt,
                    notes: request.notes, analysis: request.analysis, originalPath: request.originalPath, origin: request.origin,
                    result: request.result)
                try feedback.insert(db)
                // The request's key answered in this commit: a retry finds this reply.
                try Self.rememberCreated(db, claim: request.idempotency, id: feedback.id, now: request.receivedAt)
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
        try engine.write { db in
            guard try DropFileRecord.fetchOne(db, key: sha256)?.outcome != "processed" else { return }
            try DropFileRecord(sha256: sha256, coachId: coachId, fileName: fileName, outcome: "rejected", reason: reason,
                               feedbackId: nil, processedAt: at).save(db)
        }
    }

    /// The earlier outcome of a drop-folder file with this content, if any.
    public func dropFile(sha256: String) throws -> DropFileRecord? {
        try engine.read { db in try DropFileRecord.fetchOne(db, key: sha256) }
    }

    /// The reply with `id`, if any.
    public func feedback(id: String) throws -> FeedbackRecord? {
        try engine.read(Self.feedbackQuery(id: id))
    }

    /// `feedback` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func feedback(id: String) async throws -> FeedbackRecord? {
        try await engine.read(Self.feedbackQuery(id: id))
    }

    /// The transaction of `feedback`, shared by its synchronous and async forms.
    static func feedbackQuery(id: String) -> @Sendable (SQLSession) throws -> FeedbackRecord? {
        { db in try FeedbackRecord.fetchOne(db, key: id) }
    }

    /// Replaces a reply's written notes.
    public func updateFeedbackNotes(id: String, notes: String?) throws -> FeedbackRecord? {
        try engine.write(Self.updateFeedbackNotesQuery(id: id, notes: notes))
    }

    /// `updateFeedbackNotes` from async code: suspends on GRDB's async write instead of blocking a thread of the cooperative pool.
    public func updateFeedbackNotes(id: String, notes: String?) async throws -> FeedbackRecord? {
        try await engine.write(Self.updateFeedbackNotesQuery(id: id, notes: notes))
    }

    /// The transaction of `updateFeedbackNotes`, shared by its synchronous and async forms.
    static func updateFeedbackNotesQuery(id: String, notes: String?) -> @Sendable (SQLSession) throws -> FeedbackRecord? {
        { db in
            guard var feedback = try FeedbackRecord.fetchOne(db, key: id) else { return nil }
            feedback.notes = notes
            try feedback.update(db)
            return feedback
        }
    }

    /// Records a finished reply encode: the reply is ready, its submission `feedback_ready`,
    /// and the student gets `feedback_ready` naming the week — one transaction. An
    /// end-of-course reply also records its result on the submission (a pass graduates the
    /// enrolment's level) and sends `eoc_results_ready`.
    ///
    /// Throws `JobLeaseLost`, having written nothing, when `lease` no longer holds.
    public func completeFeedbackEncode(lease: JobLease, feedbackId: String, audioPath: String, audioBytes: Int, waveformPath: String,
                                       outputGainDB: Double, now: Date) throws {
        try completeFeedbackEncode(jobId: lease.jobId, lease: lease, feedbackId: feedbackId, audioPath: audioPath, audioBytes: audioBytes,
                                   waveformPath: waveformPath, outputGainDB: outputGainDB, now: now)
    }

    /// `completeFeedbackEncode` of a job nobody claimed (tests that drive a job's outcome).
    @_spi(Testing) public func completeFeedbackEncode(jobId: Int64, feedbackId: String, audioPath: String, audioBytes: Int,
                                                      waveformPath: String, outputGainDB: Double, now: Date) throws {
        try completeFeedbackEncode(jobId: jobId, lease: nil, feedbackId: feedbackId, audioPath: audioPath, audioBytes: audioBytes,
                                   waveformPath: waveformPath, outputGainDB: outputGainDB, now: now)
    }

    private func completeFeedbackEncode(jobId: Int64, lease: JobLease?, feedbackId: String, audioPath: String, audioBytes: Int,
                                        waveformPath: String, outputGainDB: Double, now: Date) throws {
        try immediateWrite { db in
            guard try Self.holds(db, lease, jobId: jobId) else { throw JobLeaseLost(jobId: jobId) }
            guard var feedback = try FeedbackRecord.fetchOne(db, key: feedbackId),
                  var submission = try SubmissionRecord.fetchOne(db, key: feedback.submissionId),
                  var enrolment = try EnrolmentRecord.fetchOne(db, key: submission.enrolmentId) else {
                throw StoreError.internalInconsistency("feedback \(feedbackId) lost its submission")
            }
            feedback.audioPath = audioPath
            feedback.audioBytes = audioBytes
            feedback.waveformPath = waveformPath
            feedback.outputGainDB = outputGainDB
            feedback.state = .ready
            try feedback.update(db)
            if submission.state.countsAsAccepted {
                submission.state = .feedbackReady
                if submission.kind == .eoc, let result = feedback.result { submission.result = result }
                try submission.update(db)
            }
            let coach = try CoachRecord.fetchOne(db, key: feedback.coachId)
            let week = try StudentContext.weekInfo(db, levelId: enrolment.levelId, slot: submission.slot)
            try Self.recordEvent(
                db, type: .feedbackReady, studentId: submission.studentId, levelId: enrolment.levelId, slot: submission.slot,
                occurredAt: now, submissionId: submission.id, feedbackId: feedback.id, coachName: coach?.name,
                message: StudentMessages.feedbackReady(week: submission.week, title: week.title, coachName: coach?.name))
            if submission.kind == .eoc, submission.state.countsAsAccepted, let result = feedback.result {
                let level = try enrolment.levelId.flatMap { try LevelRecord.fetchOne(db, key: $0) }
                if result == .pass, enrolment.outcome != .graduated, let enrolmentId = enrolment.id {
                    enrolment.outcome = .graduated
                    try enrolment.update(db)
                    var change = EnrolmentChangeRecord(enrolmentId: enrolmentId, change: .graduated, levelId: enrolment.levelId,
                                                       coachId: enrolment.coachId, changedAt: now, changedBy: "coach:\(feedback.coachId)")
                    try change.insert(db)
                }
                try Self.recordEvent(
                    db, type: .eocResultsReady, studentId: submission.studentId, levelId: enrolment.levelId, slot: .eoc,
                    occurredAt: now, submissionId: submission.id, feedbackId: feedback.id, coachName: coach?.name,
                    message: StudentMessages.eocResultsReady(levelName: level?.name ?? "your level", result: result),
                    extra: .init(level: level.map { .init(id: $0.id, name: $0.name) }, result: result, semesterId: enrolment.semesterId))
            }
            try db.execute(sql: "UPDATE job SET state = ?, lockedBy = NULL, lastError = NULL WHERE id = ?",
                           arguments: [JobRecord.State.done.rawValue, jobId])
        }
    }

}
