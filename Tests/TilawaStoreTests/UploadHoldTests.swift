import Foundation
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A resumable upload among nodes (DESIGN §13): which node receives it, and offsets recorded
/// only from where they were, with the objects holding each append.
@Suite("Uploads among nodes: one holder at a time, offsets compared and set, appends' objects recorded")
struct UploadHoldTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func upload(_ database: AppDatabase, id: String = "upl_1") async throws -> ResumableUploadRecord {
        let record = ResumableUploadRecord(
            id: id, studentId: "S1001", enrolmentId: nil, slot: "12", uploadProtocol: .tus, length: 300, fileExtension: "wav", fileName: nil,
            recordedAt: nil, now: now, expiresAt: now + 86_400, idempotencyKey: nil, submissionId: "sub_1")
        guard case let .created(created) = try await database.createUpload(record, maxOpenPerStudent: 3, budgetBytes: 1 << 30,
                                                                          maxUploadBytes: 1 << 20, now: now) else {
            throw StoreError.internalInconsistency("upload not created")
        }
        return created
    }

    @Test("A second node waits while the first holds it; the first renews; a hold that ran out is taken; a release frees it",
          arguments: TestEngine.all)
    func hold(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        _ = try await Self.upload(database)
        let until = Self.now + 30
        #expect(try await database.holdUpload(id: "upl_1", holder: "a", until: until, now: Self.now) == .held)
        #expect(try await database.holdUpload(id: "upl_1", holder: "b", until: until + 5, now: Self.now + 5) == .heldElsewhere(holder: "a"))
        #expect(try await database.holdUpload(id: "upl_1", holder: "a", until: until + 10, now: Self.now + 10) == .held, "renewed")
        #expect(try await database.holdUpload(id: "upl_1", holder: "b", until: until + 35, now: Self.now + 35) == .heldElsewhere(holder: "a"))
        // A's node stopped renewing: once its hold ran out, B takes it, and A's release is no longer A's to make.
        #expect(try await database.holdUpload(id: "upl_1", holder: "b", until: until + 41, now: Self.now + 41) == .held)
        try await database.releaseUpload(id: "upl_1", holder: "a")
        #expect(try await database.holdUpload(id: "upl_1", holder: "a", until: until + 42, now: Self.now + 42) == .heldElsewhere(holder: "b"))
        try await database.releaseUpload(id: "upl_1", holder: "b")
        #expect(try await database.holdUpload(id: "upl_1", holder: "a", until: until + 43, now: Self.now + 43) == .held)
        #expect(try await database.holdUpload(id: "upl_none", holder: "a", until: until, now: Self.now) == .gone)
        // A holder known to be dead is taken over at once; one that no longer holds it is not.
        #expect(try await database.takeOverUpload(id: "upl_1", from: "a", holder: "c", until: until + 50))
        #expect(try await database.holdUpload(id: "upl_1", holder: "b", until: until + 44, now: Self.now + 44) == .heldElsewhere(holder: "c"))
        #expect(try await !database.takeOverUpload(id: "upl_1", from: "a", holder: "b", until: until + 50))
    }

    @Test("An offset is recorded only from where it was, with its append's object; the answer forgets the objects",
          arguments: TestEngine.all)
    func progress(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        _ = try await Self.upload(database)
        let first = UploadSegment(startOffset: 0, length: 100, object: "uploads/upl_1/0-a")
        #expect(try await database.recordUploadProgress(id: "upl_1", from: 0, progress: UploadProgress(offset: 100, length: 300),
                                                        segment: first, expiresAt: Self.now + 86_400, now: Self.now))
        // Another node's append from 0 recorded second: refused, its object not recorded.
        let late = UploadSegment(startOffset: 0, length: 150, object: "uploads/upl_1/0-b")
        #expect(try await !database.recordUploadProgress(id: "upl_1", from: 0, progress: UploadProgress(offset: 150, length: 300),
                                                         segment: late, expiresAt: Self.now + 86_400, now: Self.now))
        #expect(try await database.resumableUpload(id: "upl_1")?.offset == 100)
        let second = UploadSegment(startOffset: 100, length: 200, object: "uploads/upl_1/100-c")
        #expect(try await database.recordUploadProgress(id: "upl_1", from: 100, progress: UploadProgress(offset: 300, length: 300),
                                                        segment: second, expiresAt: Self.now + 86_400, now: Self.now))
        #expect(try await database.uploadSegments(id: "upl_1") == [first, second])
        #expect(try await database.resumableUpload(id: "upl_1")?.state == .completing, "the last byte marks it for judging")
        #expect(try database.openUploadIds() == ["upl_1"])
        try await database.answerUpload(id: "upl_1", status: 201, body: Data(), refusal: false, expiresAt: Self.now + 86_400, now: Self.now)
        #expect(try await database.uploadSegments(id: "upl_1").isEmpty)
        #expect(try database.openUploadIds().isEmpty)
    }
}

/// The webhook outbox among nodes: one sender at a time per queue head.
@Suite("Outbox claims: one node sends a queue's head at a time; a claim that ran out is taken; delivery ends it")
struct EventClaimTests {
    @Test("A second sender is refused while the first's claim holds, takes it once it ran out; a delivered event is claimed by none",
          arguments: TestEngine.all)
    func claims(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        _ = try await onOwnThread { try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy()) }
        let head = try #require(try await store.database.dueEvents(now: at.addingTimeInterval(3_600), limit: 10).first)
        let seq = try #require(head.seq)
        let wall = Date()
        #expect(try await store.database.claimEvent(seq: seq, sender: "a", until: wall + 40, now: wall))
        #expect(try await !store.database.claimEvent(seq: seq, sender: "b", until: wall + 45, now: wall + 5))
        #expect(try await store.database.claimEvent(seq: seq, sender: "a", until: wall + 50, now: wall + 10), "its own claim, renewed")
        #expect(try await store.database.claimEvent(seq: seq, sender: "b", until: wall + 100, now: wall + 51), "a's ran out")
        // Given back unused (b stopped before its POST): a takes it at once.
        try await store.database.releaseEventClaim(seq: seq, sender: "a")
        #expect(try await !store.database.claimEvent(seq: seq, sender: "a", until: wall + 100, now: wall + 52), "only b's own release counts")
        try await store.database.releaseEventClaim(seq: seq, sender: "b")
        #expect(try await store.database.claimEvent(seq: seq, sender: "a", until: wall + 100, now: wall + 52))
        // b's POST, begun under the claim it lost, fails late: a's claim and the event's count stand.
        let before = try #require(try await store.database.engine.read { db in try EventRecord.fetchOne(db, key: seq) })
        try await store.database.markFailed(seq: seq, error: "late", nextAttemptAt: at.addingTimeInterval(600), sender: "b")
        let after = try #require(try await store.database.engine.read { db in try EventRecord.fetchOne(db, key: seq) })
        #expect(after.attempts == before.attempts && after.lastError == before.lastError, "a lost claim's failure was recorded")
        #expect(try await !store.database.claimEvent(seq: seq, sender: "b", until: wall + 100, now: wall + 53), "a's claim was cleared")
        try await store.database.markDelivered(seq: seq, now: at)
        #expect(try await !store.database.claimEvent(seq: seq, sender: "a", until: wall + 200, now: wall + 150), "delivered: nothing to send")
    }
}
