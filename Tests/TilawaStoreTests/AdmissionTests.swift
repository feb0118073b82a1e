import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Admission: rules, attempts and supersession in one transaction")
struct AdmissionTests {
    let policy = ProgramPolicy()

    @Test("An admitted submission is processing, with its encode job and a received event naming the week", arguments: TestEngine.all)
    func admits(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        let outcome = try store.database.admitSubmission(store.request("S1001", .week(2), at: at), policy: policy)
        let submission = try #require(outcome.submission)
        #expect(submission.state == .processing)
        #expect(submission.week == 2)
        #expect(submission.late == true, "week 2's deadline was Friday 18 September")
        guard case let .admitted(_, attempts, job) = outcome else { Issue.record("not admitted"); return }
        #expect(attempts.used == 1 && attempts.remaining == 1 && attempts.nextAttemptAt == nil)
        #expect(job.kind == .encodeSubmission && job.subjectId == submission.id && job.state == .queued)

        let events = try store.database.engine.read { db in try EventRecord.fetchAll(db) }
        #expect(events.count == 1)
        #expect(events[0].readAt == at, "the student's own recording is in their feed already read: no badge")
        let payload = try JSONDecoder.iso.decode(EventPayload.self, from: events[0].payload)
        #expect(payload.type == "submission_received")
        #expect(payload.week?.number == 2 && payload.week?.title == "Title 2" && payload.week?.passage == "Passage 2")
        #expect(payload.link == "quranflow://weeks/2/submissions/\(submission.id)")
        #expect(payload.message.contains("week 2 (Title 2)"))
    }

    @Test("A third recording within 7 days is refused with the instant the next attempt opens", arguments: TestEngine.all)
    func attemptLimit(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let first = TestStore.newYork(2026, 9, 20, 9)
        let second = first.addingTimeInterval(3_600)
        _ = try store.database.admitSubmission(store.request("S1001", .week(1), at: first), policy: policy)
        _ = try store.database.admitSubmission(store.request("S1001", .week(2), at: second), policy: policy)
        let third = try store.database.admitSubmission(store.request("S1001", .week(3), at: second.addingTimeInterval(60)), policy: policy)
        #expect(third.refusal == .attemptLimit(nextAttemptAt: first.addingTimeInterval(7 * 86_400), used: 2, limit: 2))
        // Exactly 7 days after the first, an attempt is open again.
        let later = try store.database.admitSubmission(store.request("S1001", .week(3), at: first.addingTimeInterval(7 * 86_400)), policy: policy)
        #expect(later.submission != nil)
        // The placement assessment is not counted.
        let assessment = try store.database.admitSubmission(store.request("S1001", .assessment, at: second.addingTimeInterval(120)), policy: policy)
        #expect(assessment.submission != nil)
    }

    @Test("Submitting a week again supersedes the unreviewed earlier recording", arguments: TestEngine.all)
    func supersedes(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 14)
        let first = try #require(try store.database.admitSubmission(store.request("S1001", .week(2), at: at), policy: policy).submission)
        let second = try #require(try store.database.admitSubmission(store.request("S1001", .week(2), at: at.addingTimeInterval(60)), policy: policy).submission)
        #expect(try store.database.submission(id: first.id)?.state == .superseded)
        #expect(try store.database.submission(id: second.id)?.state == .processing)
    }

    @Test("Rules refuse: unknown student, locked week, closed semester, EOC before 12 weeks", arguments: TestEngine.all)
    func refusals(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 14)
        #expect(try store.database.admitSubmission(store.request("S9999", .week(1), at: at), policy: policy).refusal?.code == "unknown_student")
        #expect(try store.database.admitSubmission(store.request("S1001", .week(3), at: at), policy: policy).refusal?.code == "week_locked")
        #expect(try store.database.admitSubmission(store.request("S1001", .eoc, at: at), policy: policy).refusal?.code == "eoc_not_eligible")
        let afterClose = TestStore.newYork(2027, 1, 3)
        #expect(try store.database.admitSubmission(store.request("S1001", .week(1), at: afterClose), policy: policy).refusal?.code == "semester_closed")
        #expect(try store.database.engine.read { db in try SubmissionRecord.fetchCount(db) } == 0)
        #expect(try store.database.engine.read { db in try JobRecord.fetchCount(db) } == 0)
    }

    @Test("Ten simultaneous admissions for one student yield exactly the two the rule allows", arguments: TestEngine.all)
    func concurrentAdmissions(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 10, 20)
        let database = store.database
        let requests = (0..<10).map { store.request("S1001", .week(5), at: at.addingTimeInterval(Double($0))) }
        let outcomes = try await withThrowingTaskGroup(of: AdmissionOutcome.self) { group in
            for request in requests {
                group.addTask { try database.admitSubmission(request, policy: ProgramPolicy()) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.compactMap(\.submission).count == 2)
        let refusals = outcomes.compactMap(\.refusal)
        #expect(refusals.count == 8)
        let openings = Set(refusals.compactMap { refusal -> Date? in
            if case let .attemptLimit(next, _, _) = refusal { next } else { nil }
        })
        #expect(openings.count == 1)
    }

    @Test("A job that fails for good marks its submission failed and gives the attempt back", arguments: TestEngine.all)
    func failedEncodeReturnsAttempt(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let at = TestStore.newYork(2026, 9, 20)
        _ = try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: policy)
        guard case let .admitted(second, _, job) = try store.database.admitSubmission(store.request("S1001", .week(2), at: at), policy: policy) else {
            Issue.record("second not admitted"); return
        }
        #expect(try store.database.admitSubmission(store.request("S1001", .week(3), at: at), policy: policy).refusal?.code == "attempt_limit")
        let claimed = try #require(try store.database.claimJob(id: job.id!, worker: "test", now: at))
        try store.database.failJob(id: claimed.id!, error: "encoder exploded", retryAt: nil, now: at)
        #expect(try store.database.submission(id: second.id)?.state == .failed)
        #expect(try store.database.admitSubmission(store.request("S1001", .week(3), at: at), policy: policy).submission != nil)
    }

    @Test("Ten recordings of one student at once through three nodes of one database: exactly 2 admitted", arguments: TestEngine.all)
    func tenAtOnceAcrossNodes(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let nodes = [store.database, try store.anotherNode(), try store.anotherNode()]
        defer { nodes.dropFirst().forEach(store.close) }
        let at = TestStore.newYork(2026, 9, 20)
        let policy = self.policy
        let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<10 {
                let request = store.request("S1001", .week(1 + index % 3), at: at.addingTimeInterval(Double(index)))
                let node = nodes[index % nodes.count]
                group.addTask {
                    // Off the cooperative pool: each admission holds a thread while it waits for the lock.
                    try await Task.detached { try node.admitSubmission(request, policy: policy).submission != nil }.value
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 2)
        let rows = try await store.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1001'") ?? 0
        }
        #expect(rows == 2, "every refused admission left nothing behind")
    }
}

extension JSONDecoder {
    static var iso: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
