import Foundation
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A worker whose encode job was claimed again while it waited (DESIGN §13: "a node paused
/// past its lease and resumed must not write"): the artifacts' keys are the recording's own,
/// so the stale worker must not write them, nor remove them.
@Suite("Encode jobs: a worker that lost its lease before it started leaves the recorded files alone")
struct StaleEncodeTests {
    @Test("Claimed by A, run by B after A's lease ran out, then A resumes: A encodes nothing, the files B recorded stay as they are")
    func staleWorkerWritesNothing() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let runtime = daemon.runtime
        let staged = runtime.stateDirectory.newStagingPath(extension: "opus")
        try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent("speech.opus").path, toPath: staged)
        guard case let .accepted(submission, _, job) = try runtime.intake.submit(
            stagedPath: staged, studentId: "S1001", slot: .week(12), origin: .cli, fileExtension: "opus"), let jobId = job.id else {
            Issue.record("not accepted")
            return
        }
        // A claims the job with a lease that has already run out (it stalled), and it is given back.
        let stale = try #require(try runtime.database.claimJob(id: jobId, worker: "a@elsewhere", now: daemon.clock.now,
                                                               leaseNow: Date().addingTimeInterval(-120)))
        #expect(try await runtime.database.requeueExpiredJobLeases() == 1)
        // B claims it and records it.
        let current = try #require(try runtime.database.claimJob(id: jobId, worker: "b@elsewhere", now: daemon.clock.now))
        runtime.encodeRunner.run(current)
        let recorded = try #require(try await runtime.database.submission(id: submission.id))
        let audio = try #require(recorded.audioPath)
        let store = runtime.stateDirectory.artifactStore
        func identity(_ relative: String) throws -> [FileAttributeKey: Any] {
            try FileManager.default.attributesOfItem(atPath: store.path(relative))
        }
        let before = try [audio, try #require(recorded.waveformPath)].map { try identity($0)[.systemFileNumber] as? Int }

        // A resumes and runs what it claimed.
        runtime.encodeRunner.run(stale)

        let after = try [audio, try #require(recorded.waveformPath)].map { try identity($0)[.systemFileNumber] as? Int }
        #expect(before == after, "the stale worker replaced the recorded files")
        let final = try #require(try await runtime.database.submission(id: submission.id))
        #expect(final.audioPath == recorded.audioPath && final.encodedAt == recorded.encodedAt)
        let jobNow = try #require(try await runtime.database.engine.read { db in try JobRecord.fetchOne(db, key: jobId) })
        #expect(jobNow.state == .done && jobNow.attempts == current.attempts)
    }
}
