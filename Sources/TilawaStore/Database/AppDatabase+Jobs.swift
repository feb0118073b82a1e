import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Claims the oldest runnable job for `worker`, or returns nil when there is none.
    ///
    /// Runnable: queued and due (`now`, the programme clock). The claim is one transaction
    /// (`claimWrite`) that locks the row it takes and passes over rows other claims hold
    /// (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite's one writer at a time), so two workers
    /// (threads, processes or nodes) never take the same job. It holds a lease until `leaseNow + jobLeaseDuration`:
    /// leases are measured on the wall clock (`leaseNow`), never on an accelerated or pinned
    /// programme clock, since they time workers, not the programme.
    public func claimNextJob(worker: String, now: Date, leaseNow: Date = Date()) throws -> JobRecord? {
        try engine.claimWrite(Self.claimNextJobQuery(worker: worker, now: now, leaseNow: leaseNow))
    }

    /// `claimNextJob` from async code: suspends instead of blocking a thread of the cooperative pool.
    public func claimNextJob(worker: String, now: Date, leaseNow: Date = Date()) async throws -> JobRecord? {
        try await engine.claimWrite(Self.claimNextJobQuery(worker: worker, now: now, leaseNow: leaseNow))
    }

    /// The transaction of `claimNextJob`, shared by its synchronous and async forms.
    static func claimNextJobQuery(worker: String, now: Date, leaseNow: Date) -> @Sendable (SQLSession) throws -> JobRecord? {
        { db in
            guard var job = try JobRecord.fetchOne(
                db, sql: "SELECT * FROM job WHERE state = ? AND notBefore <= ? ORDER BY id LIMIT 1" + db.skipLocked,
                arguments: [JobRecord.State.queued.rawValue, now]) else { return nil }
            job.state = .running
            job.lockedBy = worker
            job.lockedAt = now
            job.leaseExpiresAt = leaseNow.addingTimeInterval(jobLeaseDuration)
            job.attempts += 1
            try job.update(db)
            return job
        }
    }

    /// Claims one specific job if it is still queued (the CLI runs its own upload's job inline).
    public func claimJob(id: Int64, worker: String, now: Date, leaseNow: Date = Date()) throws -> JobRecord? {
        try immediateWrite { db in
            guard var job = try JobRecord.fetchOne(db, key: id), job.state == .queued else { return nil }
            job.state = .running
            job.lockedBy = worker
            job.lockedAt = now
            job.leaseExpiresAt = leaseNow.addingTimeInterval(Self.jobLeaseDuration)
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

    /// Hands a claimed job back untouched (graceful shutdown before it started its work),
    /// if its lease still holds.
    public func requeueJob(_ lease: JobLease) throws {
        try engine.write { db in
            try db.execute(sql: """
                UPDATE job SET state = ?, lockedBy = NULL, lockedAt = NULL, leaseExpiresAt = NULL,
                    attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
                WHERE id = ? AND state = ? AND attempts = ?
                """, arguments: [JobRecord.State.queued.rawValue, lease.jobId, JobRecord.State.running.rawValue, lease.fence])
        }
    }

    /// Records a finished submission encode: the artifacts and `awaiting_feedback` (unless it
    /// was superseded meanwhile), the coach's `submission_ready_for_review`, and the job
    /// done — one transaction.
    ///
    /// Throws `JobLeaseLost`, having written nothing, when `lease` no longer holds.
    @discardableResult
    public func completeSubmissionEncode(
        lease: JobLease, submissionId: String, audioPath: String, audioBytes: Int, waveformPath: String,
        outputGainDB: Double, ayahMarkers: AyahMarkers? = nil, now: Date
    ) throws -> Bool {
        try completeSubmissionEncode(jobId: lease.jobId, lease: lease, submissionId: submissionId, audioPath: audioPath, audioBytes: audioBytes,
                                     waveformPath: waveformPath, outputGainDB: outputGainDB, ayahMarkers: ayahMarkers, now: now)
    }

    /// `completeSubmissionEncode` of a job nobody claimed (tests that drive a job's outcome).
    @_spi(Testing) @discardableResult
    public func completeSubmissionEncode(
        jobId: Int64, submissionId: String, audioPath: String, audioBytes: Int, waveformPath: String,
        outputGainDB: Double, ayahMarkers: AyahMarkers? = nil, now: Date
    ) throws -> Bool {
        try completeSubmissionEncode(jobId: jobId, lease: nil, submissionId: submissionId, audioPath: audioPath, audioBytes: audioBytes,
                                     waveformPath: waveformPath, outputGainDB: outputGainDB, ayahMarkers: ayahMarkers, now: now)
    }

    private func completeSubmissionEncode(
        jobId: Int64, lease: JobLease?, submissionId: String, audioPath: String, audioBytes: Int, waveformPath: String,
        outputGainDB: Double, ayahMarkers: AyahMarkers?, now: Date
    ) throws -> Bool {
        try immediateWrite { db in
            guard try Self.holds(db, lease, jobId: jobId) else { throw JobLeaseLost(jobId: jobId) }
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
    ///
    /// Throws `JobLeaseLost`, having written nothing, when `lease` no longer holds.
    public func failJob(_ lease: JobLease, error: String, retryAt: Date?, now: Date) throws {
        try failJob(id: lease.jobId, lease: lease, error: error, retryAt: retryAt, now: now)
    }

    /// `failJob` of a job nobody claimed (tests that drive a job's outcome).
    @_spi(Testing) public func failJob(id: Int64, error: String, retryAt: Date?, now: Date) throws {
        try failJob(id: id, lease: nil, error: error, retryAt: retryAt, now: now)
    }

    private func failJob(id: Int64, lease: JobLease?, error: String, retryAt: Date?, now: Date) throws {
        try immediateWrite { db in
            guard try Self.holds(db, lease, jobId: id) else { throw JobLeaseLost(jobId: id) }
            guard var job = try JobRecord.fetchOne(db, key: id) else { return }
            job.leaseExpiresAt = nil
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

/// A job's write refused because its lease no longer holds: the job was claimed again since
/// (this worker stalled past its lease), or finished or given back. Nothing was written.
public struct JobLeaseLost: Error, CustomStringConvertible {
    public let jobId: Int64

    /// The refusal for the job `jobId`.
    public init(jobId: Int64) {
        self.jobId = jobId
    }

    public var description: String { "job \(jobId): its lease was lost; another worker has it" }
}
