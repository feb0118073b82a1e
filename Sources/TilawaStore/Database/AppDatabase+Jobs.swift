import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Claims the oldest runnable job for `worker`, or returns nil when there is none.
    ///
    /// Runnable: queued and due. The claim is one `BEGIN IMMEDIATE` transaction, so two
    /// workers (threads or processes) never take the same job.
    public func claimNextJob(worker: String, now: Date) throws -> JobRecord? {
        try immediateWrite(Self.claimNextJobQuery(worker: worker, now: now))
    }

    /// `claimNextJob` from async code: suspends on GRDB's async immediateWrite instead of blocking a thread of the cooperative pool.
    public func claimNextJob(worker: String, now: Date) async throws -> JobRecord? {
        try await immediateWrite(Self.claimNextJobQuery(worker: worker, now: now))
    }

    /// The transaction of `claimNextJob`, shared by its synchronous and async forms.
    static func claimNextJobQuery(worker: String, now: Date) -> @Sendable (SQLSession) throws -> JobRecord? {
        { db in
            guard var job = try JobRecord.fetchOne(db, where: "state = ? AND notBefore <= ?", [JobRecord.State.queued.rawValue, now],
                                                   orderBy: "id") else { return nil }
            job.state = .running
            job.lockedBy = worker
            job.lockedAt = now
            job.attempts += 1
            try job.update(db)
            return job
        }
    }

    /// Claims one specific job if it is still queued (the CLI runs its own upload's job inline).
    public func claimJob(id: Int64, worker: String, now: Date) throws -> JobRecord? {
        try immediateWrite { db in
            guard var job = try JobRecord.fetchOne(db, key: id), job.state == .queued else { return nil }
            job.state = .running
            job.lockedBy = worker
            job.lockedAt = now
            job.attempts += 1
            try job.update(db)
            return job
        }
    }

    /// Puts back jobs left `running` by workers that no longer exist (a crash, a SIGKILL),
    /// so they run again. `isAlive` answers for a `lockedBy` value.
    @discardableResult
    public func requeueAbandonedJobs(isAlive: @Sendable (String) -> Bool) throws -> Int {
        try immediateWrite { db in
            let running = try JobRecord.fetchAll(db, where: "state = ?", [JobRecord.State.running.rawValue])
            var count = 0
            for var job in running where !(job.lockedBy.map(isAlive) ?? false) {
                job.state = .queued
                job.lockedBy = nil
                job.lockedAt = nil
                try job.update(db)
                count += 1
            }
            return count
        }
    }

    /// Hands a claimed job back untouched (graceful shutdown before it started its work).
    public func requeueJob(id: Int64) throws {
        try engine.write { db in
            try db.execute(
                sql: "UPDATE job SET state = ?, lockedBy = NULL, lockedAt = NULL, attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END WHERE id = ? AND state = ?",
                arguments: [JobRecord.State.queued.rawValue, id, JobRecord.State.running.rawValue])
        }
    }

    /// Records a finished submission encode: the artifacts and `awaiting_feedback` (unless it
    /// was superseded meanwhile), the coach's `submission_ready_for_review`, and the job
    /// done — one transaction.
    @discardableResult
    public func completeSubmissionEncode(
        jobId: Int64, submissionId: String, audioPath: String, audioBytes: Int, waveformPath: String,
        outputGainDB: Double, ayahMarkers: AyahMarkers? = nil, now: Date
    ) throws -> Bool {
        try immediateWrite { db in
            guard var submission = try SubmissionRecord.fetchOne(db, key: submissionId) else {
                throw StoreError.internalInconsistency("submission \(submissionId) vanished while encoding")
            }
            // Withdrawn while the worker encoded it: the job is over, its files are not kept.
            if submission.state == .withdrawn {
                try db.execute(sql: "UPDATE job SET state = 'cancelled', lockedBy = NULL WHERE id = ?", arguments: [jobId])
                return false
            }
            submission.audioPath = audioPath
            submission.audioBytes = audioBytes
            submission.waveformPath = waveformPath
            submission.outputGainDB = outputGainDB
            submission.encodedAt = now
            if let ayahMarkers { submission.ayahMarkers = ayahMarkers }
            let becameReady = submission.state == .processing
            if becameReady { submission.state = .awaitingFeedback }
            try submission.update(db)
            if becameReady, let enrolment = try EnrolmentRecord.fetchOne(db, key: submission.enrolmentId),
               let coachId = enrolment.coachId {
                let student = try StudentRecord.fetchOne(db, key: submission.studentId)?.name ?? submission.studentId
                let week = try StudentContext.weekInfo(db, levelId: enrolment.levelId, slot: submission.slot)
                let zone = try SemesterRecord.fetchOne(db, key: submission.semesterId).flatMap { try? $0.calendar().timeZone } ?? .gmt
                try Self.recordEvent(
                    db, type: .submissionReadyForReview, studentId: submission.studentId, levelId: enrolment.levelId,
                    slot: submission.slot, occurredAt: now, submissionId: submission.id, feedbackId: nil, coachName: nil,
                    message: StaffMessages.readyForReview(student: student, week: submission.week, title: week.title, due: submission.feedbackDueAt, zone: zone),
                    recipient: .coach(coachId))
            }
            try db.execute(
                sql: "UPDATE job SET state = ?, lockedBy = NULL, lastError = NULL WHERE id = ?",
                arguments: [JobRecord.State.done.rawValue, jobId])
            return true
        }
    }

    /// Records a failed job. While `retryAt` is given it is queued again for then; otherwise
    /// it has failed for good and its submission becomes `failed`, which gives the attempt
    /// back (failed submissions never count); the recording it had superseded is
    /// `awaiting_feedback` again (back in the coach's queue and the drop folder's pairing),
    /// and the student gets `submission_failed` — one transaction.
    public func failJob(id: Int64, error: String, retryAt: Date?, now: Date) throws {
        try immediateWrite { db in
            guard var job = try JobRecord.fetchOne(db, key: id) else { return }
            job.lastError = String(error.prefix(1_000))
            job.lockedBy = nil
            job.lockedAt = nil
            if let retryAt {
                job.state = .queued
                job.notBefore = retryAt
            } else {
                job.state = .failed
                switch job.kind {
                case .encodeSubmission:
                    try Self.failSubmission(db, id: job.subjectId, reason: job.lastError, now: now)
                case .encodeFeedback:
                    try db.execute(sql: "UPDATE feedback SET state = ? WHERE id = ?",
                                   arguments: [FeedbackRecord.State.failed.rawValue, job.subjectId])
                }
            }
            try job.update(db)
        }
    }

    /// Jobs waiting or running (the encode queue depth).
    public func pendingJobCount() throws -> Int {
        try engine.read { db in
            try JobRecord.fetchCount(db, where: "state IN (?, ?)", [JobRecord.State.queued.rawValue, JobRecord.State.running.rawValue])
        }
    }
}

extension AppDatabase {
    /// Marks a submission `failed`, restores what it superseded and tells the student.
    static func failSubmission(_ db: SQLSession, id: String, reason: String?, now: Date) throws {
        // A withdrawn recording's job may fail for want of its (removed) original: it stays withdrawn.
        guard var submission = try SubmissionRecord.fetchOne(db, key: id), submission.state.countsAsAccepted else { return }
        submission.state = .failed
        submission.failureReason = reason
        try submission.update(db)
        try restoreSuperseded(db, by: id)
        let levelId = try String.fetchOne(db, sql: "SELECT levelId FROM enrolment WHERE id = ?", arguments: [submission.enrolmentId])
        let week = try StudentContext.weekInfo(db, levelId: levelId, slot: submission.slot)
        try recordEvent(
            db, type: .submissionFailed, studentId: submission.studentId, levelId: levelId, slot: submission.slot,
            occurredAt: now, submissionId: submission.id, feedbackId: nil, coachName: nil,
            message: StudentMessages.submissionFailed(week: submission.week, title: week.title))
    }
}
