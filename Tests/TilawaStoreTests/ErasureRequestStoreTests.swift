import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Erasure asked by the student in the store (issue 46, item 4), on both engines: one pending
/// request (a retry writes nothing), operations told once, uploads refused while it stands,
/// cancelled, carried out once due by exactly one of two nodes — and what an erasure takes.
@Suite("Erasure requests in the store: once, erasure_pending, cancelled, carried out once across nodes, consents gone")
struct ErasureRequestStoreTests {
    static let at = TestStore.newYork(2026, 9, 20)
    static let grace: TimeInterval = 30 * 86_400

    static func events(_ database: AppDatabase, _ type: String) async throws -> [EventRecord] {
        try await database.engine.read { db in try EventRecord.fetchAll(db, where: "type = ?", [type]) }
    }

    @Test("""
        asked once: a retry while pending gives the same request back, with one event to operations (about the student, \
        due instant in its params) and one audit row; uploads are erasure_pending; cancelled, they are accepted again
        """, arguments: TestEngine.all)
    func requestAndCancel(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        guard case let .success(first) = try await database.requestErasure(studentId: "S1001", grace: Self.grace, by: "student:S1001",
                                                                          reason: "by the student in the app", now: Self.at) else {
            Issue.record("not asked")
            return
        }
        #expect(first.created && first.request.dueAt == Self.at + Self.grace && first.request.requestedBy == "student:S1001")
        guard case let .success(retry) = try await database.requestErasure(studentId: "S1001", grace: Self.grace, by: "student:S1001",
                                                                          reason: "again", now: Self.at + 60) else {
            Issue.record("the retry was refused")
            return
        }
        #expect(!retry.created && retry.request == first.request)
        let told = try await Self.events(database, "erasure_requested")
        #expect(told.count == 1 && told.first?.recipient == "ops" && told.first?.queue == "ops" && told.first?.studentId == "S1001")
        let payload = try EventPayload.decode(try #require(told.first?.payload))
        #expect(payload.studentId == "S1001" && payload.messageKey == "erasure_requested" && payload.message.contains("Student S1001"))
        guard case let .text(dueText)? = payload.params?["due_at"] else {
            Issue.record("no due_at in \(String(describing: payload.params))")
            return
        }
        #expect(dueText == (Self.at + Self.grace).formatted(.iso8601))
        let audits = try await database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 20).entries
        #expect(audits.filter { $0.action == "erasure_requested" }.count == 1)
        try store.expectMessagesRenderFromKeys()

        let refused = try database.admitSubmission(store.request("S1001", .week(3), at: Self.at + 120), policy: ProgramPolicy()).refusal
        #expect(refused == .erasurePending(requestedAt: Self.at, dueAt: Self.at + Self.grace))
        #expect(try await database.precheckAdmission(studentId: "S1001", slot: .assessment, policy: ProgramPolicy(), now: Self.at + 120)?.refusal
                == refused)
        #expect(try database.admitSubmission(store.request("S1002", .week(3), at: Self.at + 120), policy: ProgramPolicy()).submission != nil,
                "another student records as usual")

        guard case let .success(cancelled) = try await database.cancelErasureRequest(studentId: "S1001", by: "amina", reason: "changed their mind",
                                                                                     now: Self.at + 180) else {
            Issue.record("not cancelled")
            return
        }
        #expect(cancelled.cancelledAt == Self.at + 180 && cancelled.cancelledBy == "amina" && !cancelled.isPending)
        #expect(try await database.pendingErasureRequest(studentId: "S1001") == .success(nil))
        #expect(try database.cancelErasureRequestNow(studentId: "S1001", by: "amina", reason: "x", now: Self.at + 200)
                == .failure(.noErasureRequest("S1001")))
        #expect(try database.admitSubmission(store.request("S1001", .week(3), at: Self.at + 240), policy: ProgramPolicy()).submission != nil)
        #expect(try await database.requestErasure(studentId: "S9999", grace: 0, by: "amina", reason: "x", now: Self.at) == .failure(.unknownStudent("S9999")))
        #expect(try database.pendingErasureRequestsNow().isEmpty)
    }

    @Test("""
        carried out once due, by one of two nodes racing: the student erased (audited as the erasure request), their consents \
        and requests gone; an erased student is unknown to these operations; admitted again, they must consent anew
        """, arguments: TestEngine.all)
    func carriedOutOnce(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        let other = try store.anotherNode()
        defer { store.close(other) }
        let terms = ConsentTerms(required: true, policyURL: "https://example.org/policy")
        _ = try await database.recordConsent(studentId: "S1001", version: "v1", givenBy: .student, guardianName: nil, terms: terms,
                                             timeZone: .gmt, by: "student:S1001", reason: "x", now: Self.at)
        _ = try await database.requestErasure(studentId: "S1001", grace: 3_600, by: "student:S1001", reason: "x", now: Self.at)
        #expect(try await database.dueErasureRequests(now: Self.at + 60).isEmpty, "not due within its grace")
        #expect(try await database.carryOutErasureRequest(studentId: "S1001", now: Self.at + 60) == nil)

        let due = Self.at + 3_600
        #expect(try await database.dueErasureRequests(now: due) == ["S1001"])
        async let one = database.carryOutErasureRequest(studentId: "S1001", now: due)
        async let two = other.carryOutErasureRequest(studentId: "S1001", now: due)
        let outcomes = [try await one, try await two]
        #expect(outcomes.compactMap { $0 }.count == 1, "exactly one node erased: \(outcomes)")
        #expect(try await database.isErased(studentId: "S1001"))
        let erasedBy = try await database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 50).entries.filter { $0.action == "student_erased" }
        #expect(erasedBy.count == 1 && erasedBy.first?.actor == AppDatabase.erasureRequestActor)
        let left = try await database.engine.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM consent WHERE studentId = 'S1001'") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM erasureRequest WHERE studentId = 'S1001'") ?? -1)
        }
        #expect(left.0 == 0 && left.1 == 0)
        #expect(try await database.consents(studentId: "S1001") == .failure(.unknownStudent("S1001")))
        #expect(try await database.requestErasure(studentId: "S1001", grace: 0, by: "amina", reason: "x", now: due) == .failure(.unknownStudent("S1001")))
        #expect(try await database.dueErasureRequests(now: due + 86_400).isEmpty)

        // Admitted again under the id: a new student, who must consent anew.
        let row = StudentRow(line: 2, id: try #require(Identifier(rawValue: "S1001")), name: "Aisha Rahman", level: "L1",
                             coachID: Identifier(rawValue: "C01"), semesterID: try #require(Identifier(rawValue: "fall-2026")))
        let summary = try database.importRoster(program: nil, students: [row], studentsSource: "students.csv", allowErased: ["S1001"], now: due + 60)
        #expect(summary.readmitted.count == 1)
        #expect(try await database.consents(studentId: "S1001") == .success([]))
        var policy = ProgramPolicy()
        policy.consent = terms
        #expect(try database.admitSubmission(store.request("S1001", .week(3), at: due + 120), policy: policy).refusal
                == .consentRequired(policyURL: "https://example.org/policy", policyVersion: nil))
    }

    @Test("tilawa erase carries a pending request out with the rest; the archive lists every consent, withdrawn ones too",
          arguments: TestEngine.all)
    func eraseTakesTheRequest(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        let terms = ConsentTerms()
        for (version, offset) in [("v1", 0.0), ("v2", 60.0)] {
            _ = try await database.recordConsent(studentId: "S1002", version: version, givenBy: .student, guardianName: nil, terms: terms,
                                                 timeZone: .gmt, by: "student:S1002", reason: "x", now: Self.at + offset)
        }
        _ = try await database.requestErasure(studentId: "S1002", grace: Self.grace, by: "student:S1002", reason: "x", now: Self.at + 120)
        let archive = try #require(try await StudentArchive.load(database, studentId: "S1002", artifacts: store.state.artifactStore, now: Self.at + 180))
        #expect(archive.contents.consents.map(\.version) == ["v1", "v2"], "the export works while the request is pending")

        guard case .success = try await database.erase(studentId: "S1002", force: true, by: "amina", reason: "asked", now: Self.at + 240) else {
            Issue.record("not erased")
            return
        }
        #expect(try database.pendingErasureRequestsNow().isEmpty)
        let dateOfBirth = try await database.engine.read { db in
            try String.fetchOne(db, sql: "SELECT dateOfBirth FROM student WHERE id = 'S1002'")
        }
        #expect(dateOfBirth == nil)
    }
}
