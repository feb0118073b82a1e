import Foundation
import GRDB
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

@Suite("A recording that fails for good")
struct FailedRecordingTests {
    @Test("its encode fails every retry: submission_failed, the attempt back, the earlier recording in the queue and pairable again")
    func forcedEncodeFailure() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let runtime = daemon.runtime
        let (first, second, runs) = try Self.reRecordAndFail(daemon)
        #expect(runs > 1, "retried before giving up")
        #expect(try await runtime.database.submission(id: second.id)?.state == .failed)
        #expect(try await runtime.database.submission(id: first.id)?.state == .awaitingFeedback)
        let queue = try await runtime.database.coachQueue(coachId: "C01", now: Date())
        #expect(queue.map(\.submission.id).contains(first.id) && !queue.map(\.submission.id).contains(second.id))
        let paired = try await runtime.database.pairFeedback(.slot(student: "S1001", slot: .week(12)), coachId: "C01", now: Date())
        #expect((try? paired.get())?.id == first.id)

        let events = try await runtime.database.events(studentId: "S1001", after: 0, limit: 50).filter { $0.type == "submission_failed" }
        #expect(events.count == 1)
        let payload = try JSONDecoder.api.decode(EventPayload.self, from: try #require(events.first).payload)
        #expect(payload.submissionId == second.id && payload.week?.number == 12)
        #expect(payload.message.hasPrefix("We couldn't process your recording for Week 12 (") && payload.message.hasSuffix("it did not use an attempt."))
        #expect(try await runtime.database.attemptStatus(studentId: "S1001", policy: runtime.policy, now: daemon.clock.now)?.used == 1)
    }

    /// Week 12 recorded, encoded, recorded again; the second's original is then lost, so every
    /// encode attempt fails until the job gives up. Returns both and how often the job ran.
    static func reRecordAndFail(_ daemon: TestDaemon) throws -> (SubmissionRecord, SubmissionRecord, Int) {
        let runtime = daemon.runtime
        func submit() throws -> (SubmissionRecord, JobRecord) {
            let staged = runtime.stateDirectory.newStagingPath(extension: "opus")
            try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent("speech.opus").path, toPath: staged)
            guard case let .accepted(submission, _, job) = try runtime.intake.submit(
                stagedPath: staged, studentId: "S1001", slot: .week(12), origin: .cli, fileExtension: "opus") else {
                throw CancellationError()
            }
            return (submission, job)
        }
        let (first, firstJob) = try submit()
        if let id = firstJob.id, let claimed = try runtime.database.claimJob(id: id, worker: "t", now: daemon.clock.now) {
            runtime.encodeRunner.run(claimed)
        }
        daemon.clock.advance(by: 600)
        let (second, secondJob) = try submit()
        #expect(try runtime.database.submission(id: first.id)?.state == .superseded)

        // The re-recording's original is lost: every encode attempt fails until the job gives up.
        guard let original = try runtime.database.submission(id: second.id)?.originalPath, let jobId = secondJob.id else {
            throw CancellationError()
        }
        try FileManager.default.removeItem(atPath: runtime.stateDirectory.artifactStore.path(original))
        var runs = 0
        while try runtime.database.submission(id: second.id)?.state != .failed, runs < 20 {
            if let claimed = try runtime.database.claimJob(id: jobId, worker: "t", now: daemon.clock.now) {
                runtime.encodeRunner.run(claimed)
                runs += 1
            }
            daemon.clock.advance(by: 3_600)
        }
        return (first, second, runs)
    }
}
