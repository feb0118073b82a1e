import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// `tilawa consent …`, `tilawa erasure-requests` and `tilawa erasure-request cancel` (issue 46,
/// items 3 and 4) through the real binary, on the run's engine — and `tilawa ingest` refused
/// `consent_required` until a consent is on record, as the HTTP upload is.
@Suite("tilawa consent and erasure requests", .heavy)
struct ConsentCommandTests {
    static let now = "2026-11-22 15:00:00"
    static let instant = Date(timeIntervalSince1970: 1_795_359_600)
    static let required = ["TILAWA_PRIVACY_REQUIRE_CONSENT": "true", "TILAWA_PRIVACY_POLICY_URL": "https://example.org/policy",
                           "TILAWA_PRIVACY_POLICY_VERSION": "2026-09"]

    @Test("""
        ingest is 77 consent_required until ops record one (a paper form, audited; the same again changes nothing); a minor's \
        is a guardian's; show lists the history; withdraw once, then 77 no_consent; bad usage 64
        """)
    func consent() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let speech = CommandLineStateFixture.fixture("speech.opus")
        let refused = try await state.run(["ingest", "--student", "S1001", "--week", "12", speech], at: Self.now, environment: Self.required)
        #expect(refused.status == 77 && refused.stderr.hasPrefix("tilawa: consent_required: Before you record, please read and accept"),
                "\(refused.stderr)")

        let recorded = try await state.run(["consent", "record", "--student", "S1001", "--version", "2026-09", "--given-by", "student", "--by", "amina"],
                                           at: Self.now, environment: Self.required)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stdout == "consent of S1001 recorded: version 2026-09, given by student at 2026-11-22T15:00:00Z\n")
        let again = try await state.run(["consent", "record", "--student", "S1001", "--version", "2026-09", "--given-by", "student"],
                                        at: Self.now, environment: Self.required)
        #expect(again.status == 0 && again.stdout.hasPrefix("consent of S1001 already on record"), "\(again.stdout)\(again.stderr)")
        let ingested = try await state.run(["ingest", "--student", "S1001", "--week", "12", speech], at: Self.now, environment: Self.required)
        #expect(ingested.status == 0, "\(ingested.stderr)")
        let mismatch = try await state.run(["consent", "record", "--student", "S1002", "--version", "2026-01", "--given-by", "student"],
                                           at: Self.now, environment: Self.required)
        #expect(mismatch.status == 77 && mismatch.stderr.hasPrefix("tilawa: policy_version_mismatch: "), "\(mismatch.stderr)")

        try state.write { db in try db.execute(sql: "UPDATE student SET dateOfBirth = '2012-04-23' WHERE id = 'S1002'") }
        let minor = try await state.run(["consent", "record", "--student", "S1002", "--version", "2026-09", "--given-by", "student"],
                                        at: Self.now, environment: Self.required)
        #expect(minor.status == 77 && minor.stderr.hasPrefix("tilawa: guardian_required: "), "\(minor.stderr)")
        let guardian = try await state.run(["consent", "record", "--student", "S1002", "--version", "2026-09", "--given-by", "guardian",
                                            "--guardian-name", "Khadija Farouk", "--json"], at: Self.now, environment: Self.required)
        #expect(guardian.status == 0, "\(guardian.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(guardian.stdout.utf8)) as? [String: Any])
        #expect(summary["guardian_name"] as? String == "Khadija Farouk" && summary["counts"] as? Bool == true)

        let withdrawn = try await state.run(["consent", "withdraw", "--student", "S1001", "--reason", "Letter from the family"], at: Self.now)
        #expect(withdrawn.status == 0 && withdrawn.stdout.hasPrefix("consent of S1001 withdrawn: "), "\(withdrawn.stderr)")
        let none = try await state.run(["consent", "withdraw", "--student", "S1001"], at: Self.now)
        #expect(none.status == 77 && none.stderr.hasPrefix("tilawa: no_consent: "), "\(none.stderr)")
        let shown = try await state.run(["consent", "show", "--student", "S1001", "--json"], at: Self.now, environment: Self.required)
        #expect(shown.status == 0, "\(shown.stderr)")
        let history = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(history["required"] as? Bool == true && history["current"] is NSNull && (history["consents"] as? [Any])?.count == 1)
        let text = try await state.run(["consent", "show", "--student", "S1002"], at: Self.now)
        #expect(text.status == 0 && text.stdout.contains("guardian (Khadija Farouk)") && text.stdout.contains("no (privacy.require_consent is false)"),
                "\(text.stdout)")
        let actions = try state.read { db in
            try String.fetchAll(db, sql: "SELECT action || ' ' || actor FROM audit WHERE action LIKE 'consent%' ORDER BY id")
        }
        #expect(actions.count == 3 && actions.first == "consent_given amina" && actions.last?.hasPrefix("consent_withdrawn ") == true,
                "the same consent again wrote no row: \(actions)")

        #expect(try await state.run(["consent", "show", "--student", "S9999"], at: Self.now).status == 77)
        for arguments in [["record", "--student", "S1001", "--version", "v", "--given-by", "parent"],
                          ["record", "--student", "S1001", "--version", "v", "--given-by", "student", "--guardian-name", "X"],
                          ["record", "--student", "S1001", "--version", " ", "--given-by", "student"],
                          ["withdraw", "--student", "../etc"], ["show"]] {
            let usage = try await state.run(["consent"] + arguments, at: Self.now)
            #expect(usage.status == 64 && usage.stdout.isEmpty, "\(arguments): \(usage.stderr)")
        }
    }

    @Test("erasure-requests lists the pending ones, the earliest due first; cancel takes one back (then 77 no_erasure_request); erase takes one with the rest")
    func erasureRequests() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        #expect(try await state.run(["erasure-requests"], at: Self.now).stdout == "no erasure request pending\n")
        try state.write { db in
            for (student, days) in [("S1003", 30.0), ("S1004", 2.0)] {
                try db.execute(sql: "INSERT INTO erasureRequest (studentId, requestedAt, dueAt, requestedBy) VALUES (?, ?, ?, ?)",
                               arguments: [student, Self.instant, Self.instant.addingTimeInterval(days * 86_400), "student:\(student)"])
            }
        }
        let listed = try await state.run(["erasure-requests", "--json"], at: Self.now)
        #expect(listed.status == 0, "\(listed.stderr)")
        let requests = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(requests.map { $0["student_id"] as? String } == ["S1004", "S1003"])
        #expect(requests.first?["due_at"] as? String == "2026-11-24T15:00:00Z" && requests.first?["cancelled_at"] is NSNull)

        let cancelled = try await state.run(["erasure-request", "cancel", "--student", "S1003", "--by", "amina"], at: Self.now)
        #expect(cancelled.status == 0 && cancelled.stdout == "erasure request of S1003 (asked 2026-11-22T15:00:00Z) cancelled\n", "\(cancelled.stderr)")
        let twice = try await state.run(["erasure-request", "cancel", "--student", "S1003"], at: Self.now)
        #expect(twice.status == 77 && twice.stderr.hasPrefix("tilawa: no_erasure_request: "), "\(twice.stderr)")
        #expect(try await state.run(["erasure-request", "cancel", "--student", "S9999"], at: Self.now).status == 77)
        #expect(try await state.run(["erasure-request", "cancel"], at: Self.now).status == 64)

        let erased = try await state.run(["erase", "--student", "S1004", "--confirm", "--force", "--reason", "Asked", "--by", "amina"], at: Self.now)
        #expect(erased.status == 0, "\(erased.stderr)")
        #expect(try await state.run(["erasure-requests"], at: Self.now).stdout == "no erasure request pending\n")
        let rows = try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM erasureRequest WHERE studentId = 'S1004'") ?? -1 }
        #expect(rows == 0)
    }
}
