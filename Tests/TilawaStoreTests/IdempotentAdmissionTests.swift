import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Once an upload's admission commits, its `Idempotency-Key` is answered with the recording in
/// the same commit: whatever fails after it — building the answer, storing it, the database
/// going away, the process dying — a retry with the key finds that recording and never admits a
/// second one, and is never held at 409 `idempotency_key_in_use` for the in-flight timeout.
/// The store is driven in the order the upload route drives it (`SubmissionRoutes`).
@Suite("Idempotent admission: the key is answered in the admission's own commit")
struct IdempotentAdmissionTests {
    static let retention: TimeInterval = 86_400
    static let inFlightTimeout: TimeInterval = 1_500
    static let owner = IdempotencyOwner.student("S1001")
    static let slot = Slot.week(1)

    /// The route's first steps: the key's state before the body, then its claim with the body's hash.
    private static func claim(_ store: TestStore, key: String, digest: String, at now: Date)
        throws -> (IdempotencyStateMachine, IdempotencyStateMachine.Action) {
        var machine = IdempotencyStateMachine()
        let before = try store.database.idempotencyState(owner: owner, key: key, now: now, retention: retention, inFlightTimeout: inFlightTimeout)
        _ = machine.headersReceived(before, slot: slot.description)
        guard case let .claim(hash) = machine.bodyReceived(requestHash: "\(slot):\(digest)") else {
            Issue.record("no claim after the body")
            return (machine, .ignore)
        }
        let record = try store.database.claimIdempotencyKey(owner: owner, key: key, requestHash: hash, now: now, retention: retention,
                                                            inFlightTimeout: inFlightTimeout)
        let action = machine.claimAnswered(record)
        return (machine, action)
    }

    private static func submissions(_ store: TestStore) async throws -> [String] {
        try await store.database.engine.read { db in try String.fetchAll(db, sql: "SELECT id FROM submission WHERE studentId = 'S1001' ORDER BY id") }
    }

    @Test("admitted, then the answer fails to build and the key is released: the retry replays the recording, no second row",
          arguments: TestEngine.all)
    func answerFailedAfterCommit(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let first = try Self.claim(store, key: "K-1", digest: "d1", at: at)
        var machine = first.0
        guard case .run = first.1 else { Issue.record("the first request must run: \(first.1)"); return }
        var request = store.request("S1001", Self.slot, at: at)
        request.idempotency = IdempotencyClaim(owner: Self.owner, key: "K-1", requestHash: "\(Self.slot):d1")
        let admitted = try #require(try store.database.admitSubmission(request, policy: ProgramPolicy()).submission)
        // Building the answer (`acceptedAnswer` → `submissionExtras`) failed: the route releases the key.
        #expect(machine.failed() == .release)
        try store.database.abandonIdempotentRequest(owner: Self.owner, key: "K-1")

        // The phone retries with the same key and the same recording.
        let later = at.addingTimeInterval(30)
        let (_, retry) = try Self.claim(store, key: "K-1", digest: "d1", at: later)
        guard case let .replay(status, body) = retry else {
            Issue.record("the retry must replay, not \(retry)")
            return
        }
        let replayed = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(status == 201 && replayed?["id"] as? String == admitted.id)
        #expect(try await Self.submissions(store) == [admitted.id], "one recording, however often it is sent")
    }

    @Test("admitted, then the answer is never stored (the database gone, the process dead): the retry replays at once, not 409",
          arguments: TestEngine.all)
    func answerNeverStored(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let (_, action) = try Self.claim(store, key: "K-2", digest: "d2", at: at)
        guard case .run = action else { Issue.record("the first request must run: \(action)"); return }
        var request = store.request("S1001", Self.slot, at: at)
        request.idempotency = IdempotencyClaim(owner: Self.owner, key: "K-2", requestHash: "\(Self.slot):d2")
        let admitted = try #require(try store.database.admitSubmission(request, policy: ProgramPolicy()).submission)
        // Neither `finishIdempotentRequest` nor the release ran.
        let state = try await store.database.idempotencyState(owner: Self.owner, key: "K-2", now: at.addingTimeInterval(5),
                                                        retention: Self.retention, inFlightTimeout: Self.inFlightTimeout)
        guard case let .answered(hash, status, body) = state else {
            Issue.record("the key must be answered by the admission's commit, not \(state)")
            return
        }
        #expect(hash == "\(Self.slot):d2" && status == 201)
        #expect((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["id"] as? String == admitted.id)
        let (_, retry) = try Self.claim(store, key: "K-2", digest: "d2", at: at.addingTimeInterval(5))
        let replayed = if case .replay = retry { true } else { false }
        #expect(replayed, "\(retry)")
        #expect(try await Self.submissions(store) == [admitted.id])
    }

    @Test("refused by a rule and the answer unstored: the key is released, a retry runs anew", arguments: TestEngine.all)
    func refusedKeyReleased(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let (_, action) = try Self.claim(store, key: "K-3", digest: "d3", at: at)
        guard case .run = action else { Issue.record("the first request must run: \(action)"); return }
        // Week 15 is locked in September: refused, so nothing created and the key still in flight.
        var request = store.request("S1001", .week(15), at: at)
        request.idempotency = IdempotencyClaim(owner: Self.owner, key: "K-3", requestHash: "\(Self.slot):d3")
        #expect(try store.database.admitSubmission(request, policy: ProgramPolicy()).refusal != nil)
        try store.database.abandonIdempotentRequest(owner: Self.owner, key: "K-3")
        let state = try await store.database.idempotencyState(owner: Self.owner, key: "K-3", now: at, retention: Self.retention,
                                                        inFlightTimeout: Self.inFlightTimeout)
        #expect(state == .unused)
        #expect(try await Self.submissions(store).isEmpty)
    }

    @Test("a reply stored, then its answer lost and its key released: the coach's retry replays the reply, never a second",
          arguments: TestEngine.all)
    func replyAnsweredInItsCommit(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let outcome = try store.database.admitSubmission(store.request("S1001", Self.slot, at: at), policy: ProgramPolicy())
        guard case let .admitted(submission, _, job) = outcome, let jobId = job.id else {
            Issue.record("not admitted: \(String(describing: outcome.refusal))")
            return
        }
        try store.database.completeSubmissionEncode(jobId: jobId, submissionId: submission.id, audioPath: "a/\(submission.id).opus",
                                                    audioBytes: 10, waveformPath: "w/\(submission.id).json", outputGainDB: 0, now: at)
        let coach = IdempotencyOwner.coach("C01")
        let hash = "\(submission.id):none:r1"
        var machine = IdempotencyStateMachine()
        _ = machine.headersReceived(try await store.database.idempotencyState(owner: coach, key: "R-1", now: at, retention: Self.retention,
                                                                       inFlightTimeout: Self.inFlightTimeout))
        _ = machine.bodyReceived(requestHash: hash)
        let claimed = try await store.database.claimIdempotencyKey(owner: coach, key: "R-1", requestHash: hash, now: at, retention: Self.retention,
                                                            inFlightTimeout: Self.inFlightTimeout)
        guard case .run = machine.claimAnswered(claimed) else { Issue.record("the reply's request must run"); return }
        let request = FeedbackRequest(feedbackId: "fb-once", coachId: "C01", receivedAt: at.addingTimeInterval(3_600), notes: nil,
                                      analysis: TestStore.analysis, originalPath: "originals/fb-once.m4a", origin: .http,
                                      idempotency: IdempotencyClaim(owner: coach, key: "R-1", requestHash: hash))
        let reply = try store.database.recordFeedback(request, target: .submission(submission.id)).get().0
        // Building its answer failed: the route releases the key, which the commit answered already.
        #expect(machine.failed() == .release)
        try store.database.abandonIdempotentRequest(owner: coach, key: "R-1")
        let retry = try await store.database.claimIdempotencyKey(owner: coach, key: "R-1", requestHash: hash, now: at.addingTimeInterval(3_630),
                                                          retention: Self.retention, inFlightTimeout: Self.inFlightTimeout)
        guard case let .answered(_, status, body) = retry else {
            Issue.record("the retry must find the reply, not \(retry)")
            return
        }
        let answered = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(status == 201 && answered?["id"] as? String == reply.id)
        let replies = try await store.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback") }
        #expect(replies == 1)
    }
}
