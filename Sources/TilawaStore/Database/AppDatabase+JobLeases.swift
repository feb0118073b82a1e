import Foundation
import GRDB

/// A claimed job's lease (DESIGN §13): the job, the claim's number, and until when the claim
/// holds. The number is the job's `attempts` after the claim: a fencing token that each write
/// the job makes must still match, so a worker that stalled past its lease (a paused node, a
/// frozen VM) and comes back changes nothing — another worker has claimed the job since.
public struct JobLease: Sendable, Hashable {
    public let jobId: Int64
    public let fence: Int

    public init(jobId: Int64, fence: Int) {
        self.jobId = jobId
        self.fence = fence
    }
}

extension JobRecord {
    /// The lease of this claimed job (its id and the claim's number).
    public var lease: JobLease? { id.map { JobLease(jobId: $0, fence: attempts) } }
}

extension AppDatabase {
    /// How long a claim holds without being renewed: a worker renews it every third of it.
    public static let jobLeaseDuration: TimeInterval = 30

    /// The migration "jobs: leases": until when each running job's claim holds.
    static func migrateJobLeases(_ db: Database) throws {
        try db.alter(table: "job") { t in
            t.add(column: "leaseExpiresAt", .datetime)
        }
    }

    /// Extends `lease` to `now + duration` (the wall clock, as the claim's); false when it is no
    /// longer held (the job was claimed again, finished or given back), and the worker should stop.
    public func renewJobLease(_ lease: JobLease, now: Date = Date(), duration: TimeInterval = jobLeaseDuration) throws -> Bool {
        try engine.write { db in
            try db.execute(sql: "UPDATE job SET leaseExpiresAt = ? WHERE id = ? AND attempts = ? AND state = ?",
                           arguments: [now.addingTimeInterval(duration), lease.jobId, lease.fence, JobRecord.State.running.rawValue])
            return db.changesCount == 1
        }
    }

    /// Puts back the running jobs whose lease ran out by `now` (the wall clock): their worker
    /// died or stalled, on any node, and another claims them. Every node runs it: there is no
    /// leader.
    @discardableResult
    public func requeueExpiredJobLeases(now: Date = Date()) async throws -> Int {
        try await engine.write { db in
            try db.execute(sql: """
                UPDATE job SET state = ?, lockedBy = NULL, lockedAt = NULL, leaseExpiresAt = NULL
                WHERE state = ? AND leaseExpiresAt < ?
                """, arguments: [JobRecord.State.queued.rawValue, JobRecord.State.running.rawValue, now])
            return db.changesCount
        }
    }

    /// Whether `lease` still holds in this transaction: the job is running under this claim.
    /// Nil (no lease) for the callers that hold none (tests driving a job's outcome directly).
    static func holds(_ db: SQLSession, _ lease: JobLease?, jobId: Int64) throws -> Bool {
        guard let lease else { return true }
        guard lease.jobId == jobId else { return false }
        let row = try Row.fetchOne(db, sql: "SELECT state, attempts FROM job WHERE id = ?", arguments: [jobId])
        return row.map { ($0["state"] as String) == JobRecord.State.running.rawValue && ($0["attempts"] as Int) == lease.fence } ?? false
    }
}
