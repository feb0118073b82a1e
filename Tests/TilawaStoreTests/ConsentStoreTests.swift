import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Consent to the recording policy in the store (issue 46, item 3), on both engines: recorded
/// once (the same again writes nothing), replaced, withdrawn, kept as history; a minor's is a
/// guardian's; the admission refuses without one that counts, in its own transaction.
@Suite("Consent in the store: history, idempotence, a guardian for a minor, the admission's consent_required")
struct ConsentStoreTests {
    static let at = TestStore.newYork(2026, 9, 20)
    static let terms = ConsentTerms(required: true, policyURL: "https://example.org/policy", policyVersion: nil, adultAge: 18)
    static let zone = TimeZone(identifier: "America/New_York")!

    static func record(_ database: AppDatabase, _ student: String, _ version: String, _ giver: ConsentGiver = .student,
                       guardian: String? = nil, terms: ConsentTerms = terms, by actor: String = "student:S1001",
                       at instant: Date = at) async throws -> Result<ConsentOutcome, PrivacyRefusal> {
        try await database.recordConsent(studentId: student, version: version, givenBy: giver, guardianName: guardian, terms: terms,
                                         timeZone: zone, by: actor, reason: "test", now: instant)
    }

    static func auditCount(_ database: AppDatabase, _ action: String, student: String) async throws -> Int {
        try await database.audit(AuditFilter(studentId: student), after: nil, limit: 200).entries.filter { $0.action == action }.count
    }

    @Test("""
        recorded once: the same consent again gives the stored one back with no second row or audit entry; another version \
        replaces it (the first kept, closed); withdrawn once (no_consent after); unknown students refused
        """, arguments: TestEngine.all)
    func history(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        guard case let .success(first) = try await Self.record(database, "S1001", "v1") else {
            Issue.record("not recorded")
            return
        }
        #expect(first.created && first.consent.id != nil && first.consent.givenAt == Self.at && first.consent.isCurrent)
        guard case let .success(again) = try await Self.record(database, "S1001", "v1", at: Self.at + 60) else {
            Issue.record("the same consent again was refused")
            return
        }
        #expect(!again.created && again.consent == first.consent, "the stored one, its instant unchanged")
        #expect(try await Self.auditCount(database, "consent_given", student: "S1001") == 1)

        guard case let .success(second) = try await Self.record(database, "S1001", "v2", at: Self.at + 120) else {
            Issue.record("a new version was refused")
            return
        }
        #expect(second.created)
        guard case let .success(consents) = try await database.consents(studentId: "S1001") else {
            Issue.record("no history")
            return
        }
        #expect(consents.map(\.version) == ["v1", "v2"])
        #expect(consents.first?.withdrawnAt == Self.at + 120 && consents.first?.withdrawnBy == "student:S1001")
        #expect(consents.filter(\.isCurrent).map(\.version) == ["v2"], "one current at most")
        #expect(try await Self.auditCount(database, "consent_given", student: "S1001") == 2)

        guard case let .success(withdrawn) = try await database.withdrawConsent(studentId: "S1001", by: "amina", reason: "asked", now: Self.at + 180) else {
            Issue.record("not withdrawn")
            return
        }
        #expect(withdrawn.version == "v2" && withdrawn.withdrawnAt == Self.at + 180 && withdrawn.withdrawnBy == "amina")
        #expect(try await database.withdrawConsent(studentId: "S1001", by: "amina", reason: "again", now: Self.at + 240) == .failure(.noConsent("S1001")))
        #expect(try await Self.auditCount(database, "consent_withdrawn", student: "S1001") == 1)
        let entry = try #require(try await database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 10).entries
            .first { $0.action == "consent_withdrawn" })
        #expect(entry.actor == "amina" && entry.reason == "asked")

        #expect(try await Self.record(database, "S9999", "v1") == .failure(.unknownStudent("S9999")))
        #expect(try await database.consents(studentId: "S9999") == .failure(.unknownStudent("S9999")))
        #expect(try database.consentsNow(studentId: "S1002") == .success([]))
    }

    @Test("""
        a minor (date of birth on the student's row, counted in the programme's zone) consents through a named guardian; \
        the guardian's name is kept on the consent and never in the audit log; another version than the policy's is refused first
        """, arguments: TestEngine.all)
    func guardian(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        try await database.engine.write { db in try db.execute(sql: "UPDATE student SET dateOfBirth = '2012-04-23' WHERE id = 'S1001'") }
        #expect(try await Self.record(database, "S1001", "v1") == .failure(.guardianRequired(adultAge: 18)))
        #expect(try await Self.record(database, "S1001", "v1", .guardian, guardian: " ") == .failure(.guardianRequired(adultAge: 18)))
        var versioned = Self.terms
        versioned.policyVersion = "2026-09"
        #expect(try await Self.record(database, "S1001", "v1", .guardian, guardian: "Amina Rahman", terms: versioned)
                == .failure(.policyVersionMismatch(given: "v1", current: "2026-09")))
        guard case let .success(given) = try await Self.record(database, "S1001", "2026-09", .guardian, guardian: " Amina Rahman ",
                                                                terms: versioned, by: "amina") else {
            Issue.record("the guardian's consent was refused")
            return
        }
        #expect(given.consent.givenBy == .guardian && given.consent.guardianName == "Amina Rahman")
        let audit = try await database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 10).entries
        #expect(audit.contains { $0.action == "consent_given" && $0.actor == "amina" })
        #expect(!audit.contains { ($0.after ?? "").contains("Amina") || ($0.before ?? "").contains("Amina") }, "the guardian's name stays on the consent")
        // S1002 has no date of birth: their own consent is theirs to give.
        guard case .success = try await Self.record(database, "S1002", "2026-09", terms: versioned) else {
            Issue.record("an adult's own consent was refused")
            return
        }
    }

    @Test("""
        the admission: consent_required (precheck and admission alike, the placement assessment too) until a consent counts; \
        a policy version moved on counts it no more; a paused student may consent and stays refused by the pause
        """, arguments: TestEngine.all)
    func admission(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002", "S1003"])
        defer { store.remove() }
        let database = store.database
        var policy = ProgramPolicy()
        policy.consent = Self.terms
        let required = RuleRefusal.consentRequired(policyURL: "https://example.org/policy", policyVersion: nil)
        #expect(try database.admitSubmission(store.request("S1001", .week(3), at: Self.at), policy: policy).refusal == required)
        #expect(try await database.precheckAdmission(studentId: "S1001", slot: .week(3), policy: policy, now: Self.at)?.refusal == required)
        #expect(try await database.precheckAdmission(studentId: "S1001", slot: .assessment, policy: policy, now: Self.at)?.refusal == required)
        #expect(try database.admitSubmission(store.request("S1001", .week(3), at: Self.at), policy: ProgramPolicy()).submission != nil,
                "no consent needed when privacy.require_consent is off")

        guard case .success = try await Self.record(database, "S1001", "v1") else {
            Issue.record("not recorded")
            return
        }
        #expect(try database.admitSubmission(store.request("S1001", .week(2), at: Self.at + 60), policy: policy).submission != nil)
        var moved = policy
        moved.consent.policyVersion = "v2"
        let refusedAgain = try database.admitSubmission(store.request("S1001", .week(1), at: Self.at + 120), policy: moved).refusal
        #expect(refusedAgain == .consentRequired(policyURL: "https://example.org/policy", policyVersion: "v2"))

        // Withdrawn: refused at once.
        _ = try await database.withdrawConsent(studentId: "S1002", by: "amina", reason: "x", now: Self.at)
        guard case .success = try await Self.record(database, "S1002", "v1") else {
            Issue.record("not recorded")
            return
        }
        _ = try await database.withdrawConsent(studentId: "S1002", by: "student:S1002", reason: "x", now: Self.at + 30)
        #expect(try database.admitSubmission(store.request("S1002", .week(3), at: Self.at + 60), policy: policy).refusal == required)

        // A paused enrolment takes a consent, and the pause still refuses its uploads.
        _ = try database.applyNow(.changeEnrolment(studentId: "S1003", coachId: nil, levelId: nil, state: .paused), by: "amina",
                                  reason: "travelling", policy: policy, now: Self.at)
        guard case .success = try await Self.record(database, "S1003", "v1", at: Self.at + 10) else {
            Issue.record("a paused student's consent was refused")
            return
        }
        #expect(try database.admitSubmission(store.request("S1003", .week(3), at: Self.at + 20), policy: policy).refusal == .enrolmentPaused)
    }
}
