import Foundation
import ServiceLifecycle
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A worker whose encode job was claimed again while it waited (DESIGN §13: "a node paused
/// past its lease and resumed must not write"): the artifacts' keys are the recording's own,
/// so the stale worker must not write them, nor remove them.
@Suite("Encode jobs: a worker that lost its lease, before or during its encode, leaves the recorded files alone")
struct StaleEncodeTests {
    @Test("Claimed by A, run by B after A's lease ran out, then A resumes: A encodes nothing, the files B recorded stay as they are")
    func staleWorkerWritesNothing() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let runtime = daemon.runtime
        let (submission, jobId) = try await acceptedRecording(daemon)
        // A claims the job with a lease that has already run out (it stalled), and it is given back.
        let stale = try #require(try runtime.database.claimJob(id: jobId, worker: "a@elsewhere", now: daemon.clock.now,
                                                               leaseNow: Date().addingTimeInterval(-120)))
        #expect(try await runtime.database.requeueExpiredJobLeases() == 1)
        // B claims it and records it.
        let current = try #require(try runtime.database.claimJob(id: jobId, worker: "b@elsewhere", now: daemon.clock.now))
        try await daemon.api.pool.run { runtime.encodeRunner.run(current) }
        let recorded = try #require(try await runtime.database.submission(id: submission.id))
        let audio = try #require(recorded.audioPath)
        let store = runtime.stateDirectory.artifactStore
        func identity(_ relative: String) throws -> [FileAttributeKey: Any] {
            try FileManager.default.attributesOfItem(atPath: store.path(relative))
        }
        let before = try [audio, try #require(recorded.waveformPath)].map { try identity($0)[.systemFileNumber] as? Int }

        // A resumes and runs what it claimed.
        try await daemon.api.pool.run { runtime.encodeRunner.run(stale) }

        let after = try [audio, try #require(recorded.waveformPath)].map { try identity($0)[.systemFileNumber] as? Int }
        #expect(before == after, "the stale worker replaced the recorded files")
        let final = try #require(try await runtime.database.submission(id: submission.id))
        #expect(final.audioPath == recorded.audioPath && final.encodedAt == recorded.encodedAt)
        let jobNow = try #require(try await runtime.database.engine.read { db in try JobRecord.fetchOne(db, key: jobId) })
        #expect(jobNow.state == .done && jobNow.attempts == current.attempts)
    }

    /// A worker that stalls *during* its encode (a frozen VM) while another records the job: on
    /// a disk store (one disk, or `file:///…` the nodes share) the encoder writes a work file of
    /// its own, so the stale worker, finding its lease gone, drops that file and the recorded
    /// artifact stays the one recorded. Before, the encoder renamed its output into place itself
    /// and replaced the recorded file.
    @Test("A stalls mid-encode, B claims and records meanwhile, A resumes: the recorded files keep their inodes, no work file is left")
    func stalledMidEncode() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let runtime = daemon.runtime
        let (submission, jobId) = try await acceptedRecording(daemon)
        let database = runtime.database, clock = daemon.clock
        let store = runtime.stateDirectory.artifactStore
        let stalled = Mutex(false), finished = Mutex(false)
        let resume = DispatchSemaphore(value: 0)
        var stalling = runtime.encodeRunner
        stalling.encodeStarts = { _ in
            stalled.withLock { $0 = true }
            resume.wait()
        }
        let claimedByA = try #require(try database.claimJob(id: jobId, worker: "a@elsewhere", now: clock.now))
        let workerA = stalling
        Thread.detachNewThread {
            workerA.run(claimedByA)
            finished.withLock { $0 = true }
        }
        #expect(await eventually { stalled.withLock { $0 } })

        // While A is stalled its lease runs out (its keeper may renew it meanwhile: the rescue is
        // asked as of an hour on); B claims the job and records it.
        #expect(try await database.requeueExpiredJobLeases(now: Date().addingTimeInterval(3_600)) == 1)
        let current = try #require(try database.claimJob(id: jobId, worker: "b@elsewhere", now: clock.now))
        try await daemon.api.pool.run { runtime.encodeRunner.run(current) }
        let recordedRow = try #require(try await database.submission(id: submission.id))
        var recordedFiles: [String: Int] = [:]
        for path in [try #require(recordedRow.audioPath), try #require(recordedRow.waveformPath)] {
            recordedFiles[path] = try FileManager.default.attributesOfItem(atPath: store.path(path))[.systemFileNumber] as? Int
        }

        resume.signal()
        #expect(await eventually { finished.withLock { $0 } })
        #expect(recordedFiles.count == 2)
        for (path, inode) in recordedFiles {
            let now = (try? FileManager.default.attributesOfItem(atPath: store.path(path)))?[.systemFileNumber] as? Int
            #expect(now == inode, "the stale worker replaced \(path)")
        }
        let final = try #require(try await database.submission(id: submission.id))
        #expect(final.state == .awaitingFeedback && final.encodedAt == recordedRow.encodedAt)
        let jobNow = try #require(try await database.engine.read { db in try JobRecord.fetchOne(db, key: jobId) })
        #expect(jobNow.state == .done && jobNow.attempts == 2 && jobNow.lockedBy?.hasPrefix("b@") != false)
        // A's work file went with it.
        let directory = URL(fileURLWithPath: store.path(try #require(final.audioPath))).deletingLastPathComponent().path
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty, "\(left)")
    }
}

/// A node that died holding a job gets it back from a busy node too: the workers give back
/// expired leases every third of a lease between two jobs, not only once their own queue is
/// empty — under a backlog, a dead node's recording would otherwise wait for all of it.
@Suite("Expired leases are given back by a busy node")
struct BusyRescueTests {
    @Test("a dead node's job (lease run out) starts right after the job in hand, before a backlog of five")
    func rescuedUnderBacklog() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let runtime = daemon.runtime
        let (submission, deadJob) = try await acceptedRecording(daemon)
        // The dead node's claim, its lease run out.
        _ = try #require(try runtime.database.claimJob(id: deadJob, worker: "4242@dead-node", now: daemon.clock.now,
                                                       leaseNow: Date().addingTimeInterval(-120)))
        // A backlog: five more encodes of the same recording (the work is idempotent).
        let backlog = try await runtime.database.engine.write { db in
            try (0..<5).map { _ -> Int64 in
                var record = JobRecord(kind: .encodeSubmission, subjectId: submission.id, now: Date())
                try record.insert(db)
                return record.id ?? 0
            }
        }
        let started = Mutex<[Int64]>([])
        var runner = runtime.encodeRunner
        runner.encodeStarts = { lease in
            started.withLock { $0.append(lease.jobId) }
            // Each job takes longer than the rescue interval below.
            usleep(300_000)
        }
        var workers = EncodeWorkerService(runtime: runtime, pool: daemon.api.pool, wakeup: daemon.api.wakeup, workers: 1,
                                          pollInterval: .milliseconds(100), metrics: daemon.api.metrics, logger: daemon.logger)
        workers.runner = runner
        workers.rescueInterval = .milliseconds(200)
        let group = ServiceGroup(configuration: .init(services: [.init(service: workers)], logger: daemon.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let done = await eventually { started.withLock { $0.count } >= 6 }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            #expect(done, "started: \(started.withLock { $0 })")
        }
        let order = started.withLock { $0 }
        #expect(order.count == 6 && order.first == backlog.first, "\(order)")
        #expect(order.dropFirst().first == deadJob, "the dead node's job waited for the backlog: \(order) (dead: \(deadJob))")
    }
}

/// S1001's week-12 recording admitted through the intake (judged, its encode job queued), on
/// the daemon's audio pool: the judging and encoding these tests do would otherwise hold a
/// thread of the cooperative pool — two of them on a two-core box, and every other test waits.
private func acceptedRecording(_ daemon: TestDaemon) async throws -> (SubmissionRecord, Int64) {
    let runtime = daemon.runtime
    let staged = runtime.stateDirectory.newStagingPath(extension: "opus")
    try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent("speech.opus").path, toPath: staged)
    let outcome = try await daemon.api.pool.run {
        try runtime.intake.submit(stagedPath: staged, studentId: "S1001", slot: .week(12), origin: .cli, fileExtension: "opus")
    }
    guard case let .accepted(submission, _, job) = outcome, let jobId = job.id else {
        throw StoreError.internalInconsistency("the recording was not accepted: \(outcome)")
    }
    return (submission, jobId)
}
