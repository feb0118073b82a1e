import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// An accepted recording is never lost to a fault that passes (the artifact store or the
/// database away for minutes, the disk full): such a failure puts the job back for later,
/// backing off to ten minutes, as long as the fault lasts, and uses none of its attempts; only
/// the job's own failures use them (issue 47: "nothing accepted is lost").
@Suite("Encode jobs: a passing failure waits and tries again without using an attempt")
struct TransientJobFailureTests {
    @Test("the waits: 30 s doubling, at most 10 minutes",
          arguments: [(1, 30.0), (2, 60.0), (3, 120.0), (4, 240.0), (5, 480.0), (6, 600.0), (7, 600.0), (50, 600.0), (10_000, 600.0)])
    func delays(failures: Int, seconds: TimeInterval) {
        #expect(AppDatabase.transientRetryDelay(after: failures) == seconds)
    }

    @Test("failing for a passing reason eight times: still queued, the submission still being prepared, no attempt used; the backlog's age still counts it",
          arguments: TestEngine.all)
    func transientFailuresKeepTheJob(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let admitted = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy())
        let submissionId = try #require(admitted.submission?.id)
        var now = at
        var waits: [TimeInterval] = []
        for _ in 1...8 {
            let job = try #require(try await store.database.claimNextJob(worker: "1@node", now: now), "the job is due again at \(now)")
            let lease = try #require(job.lease)
            let due = try store.database.deferJob(lease, error: "S3 unreachable: connection refused", now: now)
            waits.append(due.timeIntervalSince(now))
            #expect(try await store.database.claimNextJob(worker: "1@node", now: due.addingTimeInterval(-1)) == nil, "not before it is due")
            now = due
        }
        #expect(waits == [30, 60, 120, 240, 480, 600, 600, 600])

        let job = try #require(try await store.database.engine.read { db in try JobRecord.fetchOne(db, sql: "SELECT * FROM job") })
        #expect(job.state == .queued && job.attempts == 8 && job.transientFailures == 8 && job.countedAttempts == 0)
        #expect(job.lastError?.contains("S3 unreachable") == true)
        #expect(job.retryAfterFailure(at: now, maximumAttempts: 3) != nil, "every attempt is still there")
        #expect(try await store.database.submission(id: submissionId)?.state == .processing)
        let failedEvents = try await store.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE type = 'submission_failed'") ?? -1
        }
        #expect(failedEvents == 0, "the student is not asked to record again")

        // The operator sees it waiting: the encode backlog's age runs from when it was accepted.
        let facts = try await store.database.statusFacts(now: now, feedbackDue: 86_400)
        #expect(facts.jobsQueued == 1 && facts.oldestPendingJobCreatedAt == at)
    }

    @Test("the job's own failures still use its attempts: after passing ones, three of its own fail the recording for good",
          arguments: TestEngine.all)
    func permanentFailuresStillEnd(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let admitted = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy())
        let submissionId = try #require(admitted.submission?.id)
        var now = at
        for _ in 1...5 {
            let lease = try #require(try await store.database.claimNextJob(worker: "1@node", now: now)?.lease)
            now = try store.database.deferJob(lease, error: "database unavailable", now: now)
        }
        var retries: [Date?] = []
        for _ in 1...3 {
            let job = try #require(try await store.database.claimNextJob(worker: "1@node", now: now))
            let lease = try #require(job.lease)
            let retry = job.retryAfterFailure(at: now, maximumAttempts: 3)
            retries.append(retry)
            try store.database.failJob(lease, error: "cannot decode the original", retryAt: retry, now: now)
            now = retry ?? now
        }
        #expect(retries.map { $0 != nil } == [true, true, false], "\(retries)")
        let job = try #require(try await store.database.engine.read { db in try JobRecord.fetchOne(db, sql: "SELECT * FROM job") })
        #expect(job.state == .failed && job.attempts == 8 && job.countedAttempts == 3)
        #expect(try await store.database.submission(id: submissionId)?.state == .failed)
        #expect(try await store.database.claimNextJob(worker: "1@node", now: now.addingTimeInterval(86_400)) == nil)
    }

    @Test("a passing failure under a lost lease writes nothing", arguments: TestEngine.all)
    func deferUnderLostLease(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let wall = Date(timeIntervalSince1970: 2_000_000_000)
        _ = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy())
        let stalled = try #require(try await store.database.claimNextJob(worker: "1@node-a", now: at, leaseNow: wall))
        #expect(try await store.database.requeueExpiredJobLeases(now: wall.addingTimeInterval(60)) == 1)
        let taken = try #require(try await store.database.claimNextJob(worker: "2@node-b", now: at, leaseNow: wall.addingTimeInterval(61)))
        let staleLease = try #require(stalled.lease)
        #expect(throws: JobLeaseLost.self) { try store.database.deferJob(staleLease, error: "late", now: at) }
        let job = try #require(try await store.database.engine.read { db in try JobRecord.fetchOne(db, sql: "SELECT * FROM job") })
        #expect(job.state == .running && job.lockedBy == "2@node-b" && job.transientFailures == 0 && job.attempts == taken.attempts)
    }
}
