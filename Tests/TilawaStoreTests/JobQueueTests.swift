import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Durable job queue")
struct JobQueueTests {
    @Test("Jobs are claimed once each, oldest first; abandoned ones come back, live ones do not", arguments: TestEngine.all)
    func claimAndRequeue(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        for week in 1...2 {
            _ = try store.database.admitSubmission(store.request("S100\(week)", .week(week), at: at), policy: ProgramPolicy())
        }
        let first = try #require(try store.database.claimNextJob(worker: "dead@host", now: at))
        let second = try #require(try store.database.claimNextJob(worker: "alive@host", now: at))
        #expect(first.id! < second.id!)
        #expect(try store.database.claimNextJob(worker: "x", now: at) == nil)
        #expect(try store.database.requeueAbandonedJobs { $0 == "alive@host" } == 1)
        let again = try #require(try store.database.claimNextJob(worker: "y", now: at))
        #expect(again.id == first.id && again.attempts == 2)
    }

    @Test("A retried job waits until its notBefore", arguments: TestEngine.all)
    func retryWaits(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        _ = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy())
        let job = try #require(try store.database.claimNextJob(worker: "w", now: at))
        try store.database.failJob(id: job.id!, error: "disk hiccup", retryAt: at.addingTimeInterval(30), now: at)
        #expect(try store.database.claimNextJob(worker: "w", now: at.addingTimeInterval(29)) == nil)
        #expect(try store.database.claimNextJob(worker: "w", now: at.addingTimeInterval(30))?.id == job.id)
    }

    @Test("Workers of two nodes claiming at once take every job exactly once", arguments: TestEngine.all)
    func concurrentClaims(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }
        let at = TestStore.newYork(2026, 9, 20)
        for student in 1001...1009 {
            for week in 1...2 {
                _ = try store.database.admitSubmission(store.request("S\(student)", .week(week), at: at), policy: ProgramPolicy())
            }
        }
        let queued = try store.database.pendingJobCount()
        let nodes = [store.database, other]
        let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for worker in 0..<6 {
                let database = nodes[worker % 2]
                group.addTask {
                    try await onOwnThread {
                        var ids: [Int64] = []
                        while let job = try database.claimNextJob(worker: "\(worker)@node#0", now: at) { ids.append(job.id ?? -1) }
                        return ids
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(queued >= 4 && claimed.count == queued && Set(claimed).count == queued, "\(queued): \(claimed.sorted())")
    }

    @Test("A lease runs out unless renewed; the job is claimed again, and the stalled worker's writes change nothing",
          arguments: TestEngine.all)
    func leaseFencing(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let wall = Date(timeIntervalSince1970: 2_000_000_000)
        let admitted = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy())
        let submissionId = try #require(admitted.submission?.id)
        let stalled = try #require(try await store.database.claimNextJob(worker: "1@node-a", now: at, leaseNow: wall))
        let staleLease = try #require(stalled.lease)
        #expect(stalled.leaseExpiresAt == wall.addingTimeInterval(AppDatabase.jobLeaseDuration))

        // Renewed in time, the lease holds past its first end.
        #expect(try await store.database.renewJobLease(staleLease, now: wall.addingTimeInterval(10)))
        #expect(try await store.database.requeueExpiredJobLeases(now: wall.addingTimeInterval(35)) == 0)
        // Then node A stalls: nothing renews it, the lease runs out, and any node's rescuer gives it back.
        #expect(try await store.database.requeueExpiredJobLeases(now: wall.addingTimeInterval(41)) == 1)
        let taken = try #require(try await store.database.claimNextJob(worker: "7@node-b", now: at, leaseNow: wall.addingTimeInterval(42)))
        #expect(taken.id == stalled.id && taken.attempts == stalled.attempts + 1)

        // Node A comes back: its renewal, completion, failure and hand-back are all refused.
        #expect(try await !store.database.renewJobLease(staleLease, now: wall.addingTimeInterval(43)))
        #expect(throws: JobLeaseLost.self) {
            try store.database.completeSubmissionEncode(lease: staleLease, submissionId: submissionId, audioPath: "stale.opus",
                                                        audioBytes: 1, waveformPath: "stale.json", outputGainDB: 0, now: at)
        }
        #expect(throws: JobLeaseLost.self) {
            try store.database.failJob(staleLease, error: "late", retryAt: nil, now: at)
        }
        try store.database.requeueJob(staleLease)
        let untouched = try #require(try await store.database.submission(id: submissionId))
        #expect(untouched.state == .processing && untouched.audioPath == nil)
        let job = try #require(try await store.database.engine.read { db in try JobRecord.fetchOne(db, key: taken.id!) })
        #expect(job.state == .running && job.lockedBy == "7@node-b" && job.attempts == taken.attempts)

        // Node B's lease holds: its completion is recorded.
        let lease = try #require(taken.lease)
        #expect(try store.database.completeSubmissionEncode(lease: lease, submissionId: submissionId, audioPath: "a.opus", audioBytes: 1,
                                                            waveformPath: "a.json", outputGainDB: 0, now: at))
        #expect(try await store.database.submission(id: submissionId)?.state == .awaitingFeedback)
        #expect(try await !store.database.renewJobLease(lease, now: wall.addingTimeInterval(50)), "a finished job has no lease to renew")
    }
}
