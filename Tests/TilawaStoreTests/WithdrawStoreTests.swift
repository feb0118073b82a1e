import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Withdrawing a recording in the store")
struct WithdrawStoreTests {
    @Test("a queued encode is cancelled; a worker that finishes afterwards keeps nothing; the week is open again", arguments: TestEngine.all)
    func racesTheEncoder(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        let at = TestStore.newYork(2026, 11, 22, 10)
        let outcome = try store.database.admitSubmission(store.request("S1001", .week(12), at: at), policy: ProgramPolicy())
        guard case let .admitted(submission, _, job) = outcome, let jobId = job.id else {
            Issue.record("not admitted")
            return
        }
        let result = try await store.database.withdrawSubmission(id: submission.id, studentId: "S1001", windowMinutes: 10,
                                                                 now: at.addingTimeInterval(60))
        guard case let .success(withdrawal) = result else {
            Issue.record("not withdrawn: \(result)")
            return
        }
        #expect(withdrawal.filesToRemove == [submission.originalPath].compactMap { $0 })
        #expect(try await store.database.engine.read { db in try JobRecord.fetchOne(db, key: jobId)?.state } == .cancelled)
        // A worker that had claimed it before finds it withdrawn: nothing is recorded.
        #expect(try store.database.completeSubmissionEncode(jobId: jobId, submissionId: submission.id, audioPath: "a.opus", audioBytes: 9,
                                                            waveformPath: "w.json", outputGainDB: 0, now: at.addingTimeInterval(90)) == false)
        let row = try #require(try await store.database.submission(id: submission.id))
        #expect(row.state == .withdrawn && row.audioPath == nil && row.originalPath == nil)
        // A failure of its job for want of the removed original leaves it withdrawn.
        try store.database.failJob(id: jobId, error: "no original", retryAt: nil, now: at.addingTimeInterval(120))
        #expect(try await store.database.submission(id: submission.id)?.state == .withdrawn)
        // The attempt is back and the week counts as not submitted.
        let attempts = try await store.database.attemptStatus(studentId: "S1001", policy: ProgramPolicy(), now: at.addingTimeInterval(180))
        #expect(attempts?.used == 0)
        let again = try store.database.admitSubmission(store.request("S1001", .week(12), at: at.addingTimeInterval(240)), policy: ProgramPolicy())
        #expect(again.submission != nil)
    }

    @Test("withdraw_minutes 0 turns withdrawal off", arguments: TestEngine.all)
    func turnedOff(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        let at = TestStore.newYork(2026, 11, 22, 10)
        let submission = try #require(try store.database.admitSubmission(store.request("S1001", .week(12), at: at), policy: ProgramPolicy()).submission)
        let result = try await store.database.withdrawSubmission(id: submission.id, studentId: "S1001", windowMinutes: 0, now: at)
        #expect(result.failureCode == "withdraw_window_passed")
        #expect(try await store.database.submission(id: submission.id)?.state == .processing)
    }
}

extension Result where Failure == AppDatabase.WithdrawRefusal {
    var failureCode: String? {
        if case let .failure(refusal) = self { refusal.code } else { nil }
    }
}
