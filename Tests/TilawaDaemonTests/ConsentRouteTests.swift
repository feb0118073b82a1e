import Foundation
import HTTPTypes
import Hummingbird
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaCore
import TilawaTestSupport

/// Consent to the recording policy over HTTP (DESIGN §16, issue 46 item 3): `PUT`, `GET`,
/// `DELETE /v1/students/{id}/consent`, and every upload path refused `consent_required` before
/// its body while `privacy.require_consent` finds none that counts.
@Suite("Consent over HTTP: required before any upload, given once, withdrawn, a guardian for a minor, who may")
struct ConsentRouteTests {
    static let policy = "https://example.org/recording-policy"

    /// A daemon requiring consent to version 2026-09 of the policy.
    static func daemon(_ more: @escaping (inout TilawaConfiguration) -> Void = { _ in }) async throws -> TestDaemon {
        try await TestDaemon(configure: { configuration in
            configuration.privacy.requireConsent = true
            configuration.privacy.policyURL = URL(string: policy)
            configuration.privacy.policyVersion = "2026-09"
            more(&configuration)
        })
    }

    static func put(_ client: LiveClient, _ daemon: TestDaemon, _ student: String, _ body: String, as role: Role = .student,
                    subject: String? = nil, type: String = "application/json") async throws -> LiveAnswer {
        try await client.execute(uri: "/v1/students/\(student)/consent", method: .put,
                                 headers: try await daemon.headers(role, subject ?? student, [.contentType: type]), body: ByteBuffer(string: body))
    }

    static func upload(_ client: LiveClient, _ daemon: TestDaemon, _ student: String, _ slot: String = "12") async throws -> LiveAnswer {
        try await client.execute(uri: "/v1/students/\(student)/weeks/\(slot)/submissions", method: .post,
                                 headers: try await daemon.headers(.student, student, [.contentType: "audio/ogg"]),
                                 body: try TestDaemon.fixture("speech.opus"))
    }

    @Test("""
        without a consent every upload is 409 consent_required with the policy (one-shot, tus, the placement assessment), \
        nothing counted; the wrong version is 422 policy_version_mismatch; bad bodies 400 and 415; given (201, once: 200 \
        again, one audit row) the upload is accepted; withdrawn (200 offering erasure), refused again
        """)
    func requiredBeforeUploads() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let missing = try await client.execute(uri: "/v1/students/S1001/consent", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(missing.status == .notFound && missing.json?["code"] as? String == "no_consent")
            #expect(missing.json?["required"] as? Bool == true && missing.json?["policy_url"] as? String == Self.policy)

            let refused = try await Self.upload(client, daemon, "S1001")
            #expect(refused.status == .conflict && refused.json?["code"] as? String == "consent_required", "\(String(buffer: refused.body))")
            #expect(refused.json?["policy_url"] as? String == Self.policy && refused.json?["policy_version"] as? String == "2026-09")
            #expect(refused.json?["detail"] as? String == "Before you record, please read and accept the recording policy at \(Self.policy).")
            let tus = try await client.execute(uri: "/v1/students/S1001/weeks/12/uploads", method: .post,
                                               headers: try await daemon.headers(.student, "S1001", [.init("Tus-Resumable")!: "1.0.0",
                                                                                                    .init("Upload-Length")!: "40000"]),
                                               body: ByteBuffer())
            #expect(tus.status == .conflict && tus.json?["code"] as? String == "consent_required", "\(String(buffer: tus.body))")
            let assessment = try await Self.upload(client, daemon, "S1011", "assessment")
            #expect(assessment.json?["code"] as? String == "consent_required", "the placement assessment too")
            #expect(try await daemon.runtime.database.attemptStatus(studentId: "S1001", policy: daemon.runtime.policy, now: daemon.clock.now)?.used == 0)

            let mismatch = try await Self.put(client, daemon, "S1001", #"{"version": "2026-01", "given_by": "student"}"#)
            #expect(mismatch.status == .unprocessableContent && mismatch.json?["code"] as? String == "policy_version_mismatch")
            #expect(mismatch.json?["policy_version"] as? String == "2026-09")
            for (body, type, status) in [
                (#"{"version": "2026-09", "given_by": "parent"}"#, "application/json", HTTPResponse.Status.badRequest),
                (#"{"version": "2026-09"}"#, "application/json", .badRequest),
                (#"{"version": "2026-09", "given_by": "student", "guardian_name": "Amina"}"#, "application/json", .badRequest),
                (#"{"version": "2026-09", "given_by": "student", "signed": true}"#, "application/json", .badRequest),
                (#"{"version": "", "given_by": "student"}"#, "application/json", .badRequest),
                ("not json", "application/json", .badRequest),
                ("2026-09", "text/plain", .unsupportedMediaType),
            ] {
                let answer = try await Self.put(client, daemon, "S1001", body, type: type)
                #expect(answer.status == status, "\(body): \(String(buffer: answer.body))")
            }

            daemon.clock.advance(by: 60)
            let given = try await Self.put(client, daemon, "S1001", #"{"version": "2026-09", "given_by": "student"}"#)
            #expect(given.status == .created, "\(String(buffer: given.body))")
            #expect(given.json?["counts"] as? Bool == true && given.json?["given_at"] as? String == daemon.clock.now.formatted(.iso8601))
            #expect(given.json?["given_by"] as? String == "student" && given.json?["guardian_name"] is NSNull)
            daemon.clock.advance(by: 60)
            let again = try await Self.put(client, daemon, "S1001", #"{"version": "2026-09", "given_by": "student"}"#)
            #expect(again.status == .ok && again.json?["given_at"] as? String == given.json?["given_at"] as? String, "the same consent, unchanged")
            let audits = try await daemon.runtime.database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 50).entries
            #expect(audits.filter { $0.action == "consent_given" }.map(\.actor) == ["student:S1001"], "one audit row")
            let shown = try await client.execute(uri: "/v1/students/S1001/consent", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(shown.status == .ok && shown.json?["version"] as? String == "2026-09" && shown.json?["required"] as? Bool == true)

            #expect(try await Self.upload(client, daemon, "S1001").status == .created)

            let withdrawn = try await client.execute(uri: "/v1/students/S1001/consent", method: .delete,
                                                     headers: try await daemon.headers(.student, "S1001"))
            #expect(withdrawn.status == .ok && withdrawn.json?["withdrawn_at"] as? String == daemon.clock.now.formatted(.iso8601))
            let offer = try #require(withdrawn.json?["erasure_request"] as? [String: Any])
            #expect(offer["href"] as? String == "/v1/students/S1001/erasure-request" && offer["method"] as? String == "POST")
            #expect(try await client.execute(uri: "/v1/students/S1001/consent", method: .delete,
                                             headers: try await daemon.headers(.student, "S1001")).json?["code"] as? String == "no_consent")
            daemon.clock.advance(by: 60)
            #expect(try await Self.upload(client, daemon, "S1001", "11").json?["code"] as? String == "consent_required")
            #expect(try await daemon.runtime.database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 50).entries
                .contains { $0.action == "consent_withdrawn" && $0.actor == "student:S1001" })
        }
    }

    @Test("""
        a minor's own consent is 422 guardian_required; ops record the guardian's (201, named); a coach is 403, another \
        student 404, an unknown or erased student 404 unknown_student; a paused student consents and stays refused by the pause
        """)
    func guardianAndWhoMay() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.runtime.database.engine.write { db in try db.execute(sql: "UPDATE student SET dateOfBirth = '2012-04-23' WHERE id = 'S1002'") }
        try await daemon.application().live { client in
            let own = try await Self.put(client, daemon, "S1002", #"{"version": "2026-09", "given_by": "student"}"#)
            #expect(own.status == .unprocessableContent && own.json?["code"] as? String == "guardian_required" && own.json?["adult_age"] as? Int == 18)
            let guardian = try await Self.put(client, daemon, "S1002", #"{"version": "2026-09", "given_by": "guardian", "guardian_name": "Khadija Farouk"}"#,
                                              as: .ops, subject: "amina")
            #expect(guardian.status == .created && guardian.json?["guardian_name"] as? String == "Khadija Farouk", "\(String(buffer: guardian.body))")
            #expect(try await daemon.runtime.database.audit(AuditFilter(studentId: "S1002"), after: nil, limit: 10).entries
                .contains { $0.action == "consent_given" && $0.actor == "amina" })

            for method in [HTTPRequest.Method.get, .delete] {
                let coach = try await client.execute(uri: "/v1/students/S1002/consent", method: method, headers: try await daemon.headers(.coach, "C02"))
                #expect(coach.status == .forbidden, "a coach, \(method)")
                let other = try await client.execute(uri: "/v1/students/S1002/consent", method: method, headers: try await daemon.headers(.student, "S1001"))
                #expect(other.status == .notFound && other.json?["code"] as? String == "unknown_student", "another student, \(method)")
            }
            #expect(try await Self.put(client, daemon, "S1002", #"{"version": "2026-09", "given_by": "student"}"#, as: .coach, subject: "C02").status
                    == .forbidden)
            #expect(try await Self.put(client, daemon, "S9999", #"{"version": "2026-09", "given_by": "student"}"#, as: .ops, subject: "amina")
                .json?["code"] as? String == "unknown_student")
            guard case .success = try await daemon.runtime.database.erase(studentId: "S1011", force: true, by: "amina", reason: "asked",
                                                                        now: daemon.clock.now) else {
                Issue.record("S1011 not erased")
                return
            }
            let erased = try await client.execute(uri: "/v1/students/S1011/consent", method: .get, headers: try await daemon.headers(.ops, "amina"))
            #expect(erased.status == .notFound && erased.json?["code"] as? String == "unknown_student")

            // Paused by the back office: the consent is taken, the pause still refuses the upload.
            let paused = try await client.execute(uri: "/v1/students/S1008/enrolment", method: .put,
                                                  headers: try await daemon.headers(.ops, "amina", [.contentType: "application/json"]),
                                                  body: ByteBuffer(string: #"{"state": "paused", "reason": "Travelling"}"#))
            #expect(paused.status == .ok, "\(String(buffer: paused.body))")
            #expect(try await Self.put(client, daemon, "S1008", #"{"version": "2026-09", "given_by": "student"}"#).status == .created)
            #expect(try await Self.upload(client, daemon, "S1008").json?["code"] as? String == "enrolment_paused")
        }
    }

    @Test("""
        a student the identity provider turns off (SCIM) keeps their consent: their tokens are refused as before, ops still read \
        it, and turned on again they record with it
        """)
    func scimDeprovisioned() async throws {
        let daemon = try await Self.daemon { configuration in
            let path = configuration.workingDirectory + "/scim.token"
            FileManager.default.createFile(atPath: path, contents: Data((SCIMRouteTests.token + "\n").utf8))
            configuration.scim = .init(tokenFile: path)
        }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let created = try await SCIMRouteTests.scim(client, .post, "/Users", #"{"userName": "idp|noor", "name": {"givenName": "Noor", "familyName": "Haddad"}, "active": true}"#)
            let id = try #require(created.json?["id"] as? String, "\(String(buffer: created.body))")
            #expect(try await Self.put(client, daemon, id, #"{"version": "2026-09", "given_by": "student"}"#).status == .created)
            daemon.clock.advance(by: 60)
            let off = try await SCIMRouteTests.scim(client, .patch, "/Users/\(id)", """
                {"schemas": ["\(SCIMRouteTests.patchOp)"], "Operations": [{"op": "replace", "value": {"active": false}}]}
                """)
            #expect(off.status == .ok, "\(String(buffer: off.body))")
            daemon.clock.advance(by: 1)
            let refused = try await client.execute(uri: "/v1/students/\(id)/consent", method: .get, headers: try await daemon.headers(.student, id))
            #expect(refused.status == .unauthorized && refused.json?["code"] as? String == "unknown_subject")
            let byOps = try await client.execute(uri: "/v1/students/\(id)/consent", method: .get, headers: try await daemon.headers(.ops, "amina"))
            #expect(byOps.status == .ok && byOps.json?["counts"] as? Bool == true, "the consent is unchanged")
            let on = try await SCIMRouteTests.scim(client, .patch, "/Users/\(id)", """
                {"schemas": ["\(SCIMRouteTests.patchOp)"], "Operations": [{"op": "replace", "value": {"active": true}}]}
                """)
            #expect(on.status == .ok)
            daemon.clock.advance(by: 1)
            let assessment = try await Self.upload(client, daemon, id, "assessment")
            #expect(assessment.status == .created, "\(String(buffer: assessment.body))")
        }
    }
}
