import Foundation
import GRDB

/// A job's failures come in two kinds. A *passing* one — the artifact store or the database
/// away, the disk full — says nothing about the recording: the job waits and tries again for
/// as long as the fault lasts, and the student is never told to record again for it
/// (`deferJob`). Any other failure uses one of the job's attempts (`failJob`), and after the
/// last the recording has failed for good.
///
/// `attempts` numbers every claim and is the lease's fencing token, so it is never taken back;
/// `transientFailures` counts the claims that ended in a passing failure, and the attempts a
/// job has used are the difference (`JobRecord.countedAttempts`).
extension AppDatabase {
    /// The migration "jobs: transient failures".
    static func migrateJobTransientFailures(_ db: Database) throws {
        try db.alter(table: "job") { t in
            t.add(column: "transientFailures", .integer).notNull().defaults(to: 0)
        }
    }

    /// The first wait after a passing failure; each one in a row after it doubles it.
    public static let transientRetryBase: TimeInterval = 30
    /// The longest wait between two tries while a fault lasts.
    public static let transientRetryCap: TimeInterval = 600

    /// How long a job waits after its `failures`-th passing failure: 30 s, 60 s, 120 s, …,
    /// at most 10 minutes.
    public static func transientRetryDelay(after failures: Int) -> TimeInterval {
        let doublings = min(max(0, failures - 1), 10)
        return min(transientRetryCap, transientRetryBase * Double(1 << doublings))
    }

    /// Queues a job that failed for a passing reason again, for later, without using one of
    /// its attempts; its submission or reply stays as it is (still being prepared). Returns
    /// when the job is due again.
    ///
    /// Throws `JobLeaseLost`, having written nothing, when `lease` no longer holds.
    @discardableResult
    public func deferJob(_ lease: JobLease, error: String, now: Date) throws -> Date {
        try deferJob(id: lease.jobId, lease: lease, error: error, now: now)
    }

    /// `deferJob` of a job nobody claimed (tests that drive a job's outcome).
    @_spi(Testing) @discardableResult
    public func deferJob(id: Int64, error: String, now: Date) throws -> Date {
        try deferJob(id: id, lease: nil, error: error, now: now)
    }

    private func deferJob(id: Int64, lease: JobLease?, error: String, now: Date) throws -> Date {
        try immediateWrite { db in
            guard try Self.holds(db, lease, jobId: id) else { throw JobLeaseLost(jobId: id) }
            guard var job = try JobRecord.fetchOne(db, key: id) else {
                throw StoreError.internalInconsistency("job \(id) vanished while it ran")
            }
            job.transientFailures += 1
            let due = now.addingTimeInterval(Self.transientRetryDelay(after: job.transientFailures))
            job.state = .queued
            job.notBefore = due
            job.lastError = String(error.prefix(1_000))
            job.lockedBy = nil
            job.lockedAt = nil
            job.leaseExpiresAt = nil
            try job.update(db)
            return due
        }
    }
}

extension JobRecord {
    /// The attempts this job has used: its claims, less those that ended in a passing failure.
    public var countedAttempts: Int { max(0, attempts - transientFailures) }

    /// When a job that failed for a reason of its own (not a passing one) at `now` runs again:
    /// 30 s × the attempts used, or nil once `maximumAttempts` are used — it has failed for good.
    public func retryAfterFailure(at now: Date, maximumAttempts: Int) -> Date? {
        countedAttempts < maximumAttempts ? now.addingTimeInterval(30 * Double(countedAttempts)) : nil
    }
}
