import Foundation
import HTTPTypes
import Hummingbird
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// Sign-out everywhere (DESIGN §16, issue 46): `POST /v1/{students|coaches}/{id}/sessions/revoke`
/// refuses every token issued until then (`revoked_token`, by `iat`), removes the devices and
/// ends a coach's desk sessions; by the person themself, or by ops with a reason (audited).
@Suite("Sign-out everywhere over HTTP: earlier tokens refused, devices and desk sessions gone, ops audited")
struct SessionRevokeRouteTests {
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// `PUT …/devices/{device}` with the owner's own token: 201.
    static func register(_ client: LiveClient, _ daemon: TestDaemon, _ role: Role, _ owner: String, _ device: String, _ n: Int) async throws {
        let path = role == .student ? "students" : "coaches"
        let answer = try await client.execute(uri: "/v1/\(path)/\(owner)/devices/\(device)", method: .put,
                                              headers: try await daemon.headers(role, owner, [.contentType: "application/json"]),
                                              body: ByteBuffer(string: #"{"platform": "ios", "token": "\#(token(n))"}"#))
        #expect(answer.status == .created, "\(owner) \(device): \(String(buffer: answer.body))")
    }

    @Test("""
        a student signs out everywhere: 200 with what was done; their earlier token and one of the same second are 401 \
        revoked_token, one issued a second later works; their devices are gone, another student's stay; no audit row; \
        a second call moves the instant on
        """)
    func studentRevokes() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            try await Self.register(client, daemon, .student, "S1001", "phone", 1)
            try await Self.register(client, daemon, .student, "S1001", "tablet", 2)
            try await Self.register(client, daemon, .student, "S1002", "phone", 3)
            let earlier = try await daemon.headers(.student, "S1001")
            let timeline = "/v1/students/S1001/timeline"
            #expect(try await client.execute(uri: timeline, method: .get, headers: earlier).status == .ok)

            daemon.clock.advance(by: 60)
            let revoked = try await client.execute(uri: "/v1/students/S1001/sessions/revoke", method: .post, headers: earlier)
            #expect(revoked.status == .ok, "\(String(buffer: revoked.body))")
            #expect(revoked.json?["revoked_at"] as? String == daemon.clock.now.formatted(.iso8601))
            #expect(revoked.json?["devices_removed"] as? Int == 2 && revoked.json?["desk_sessions_ended"] as? Int == 0)

            let sameSecond = try await daemon.headers(.student, "S1001")
            for headers in [earlier, sameSecond] {
                let refused = try await client.execute(uri: timeline, method: .get, headers: headers)
                #expect(refused.status == .unauthorized && refused.json?["code"] as? String == "revoked_token", "\(String(buffer: refused.body))")
                #expect(refused.headers[.wwwAuthenticate]?.contains(#"error="invalid_token""#) == true)
            }
            #expect(try await daemon.runtime.database.devices(owner: .student, ownerId: "S1001").isEmpty)
            #expect(try await daemon.runtime.database.devices(owner: .student, ownerId: "S1002").count == 1, "another student's phone stays")
            #expect(try await client.execute(uri: "/v1/students/S1002/timeline", method: .get,
                                             headers: try await daemon.headers(.student, "S1002")).status == .ok)

            daemon.clock.advance(by: 1)
            let later = try await daemon.headers(.student, "S1001")
            #expect(try await client.execute(uri: timeline, method: .get, headers: later).status == .ok, "signed in again a second later")
            let audits = try await daemon.runtime.database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 50)
            #expect(!audits.entries.contains { $0.action == "sessions_revoked" }, "the student's own sign-out is not a back-office act")

            // Again, a minute on: the instant moves, and the token of a second ago goes too.
            daemon.clock.advance(by: 60)
            let again = try await client.execute(uri: "/v1/students/S1001/sessions/revoke", method: .post, headers: later)
            #expect(again.status == .ok && again.json?["devices_removed"] as? Int == 0)
            #expect(again.json?["revoked_at"] as? String == daemon.clock.now.formatted(.iso8601))
            #expect(try await client.execute(uri: timeline, method: .get, headers: later).json?["code"] as? String == "revoked_token")
        }
    }

    @Test("""
        ops must say why: no body, {} and an empty reason are 422 reason_required, text is 415, another member 400, and \
        nothing changes; with a reason the student is signed out and the audit log says who and why; an unknown or \
        erased student is 404 unknown_student, an unknown coach 404 unknown_coach
        """)
    func opsRevokesWithReason() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            try await Self.register(client, daemon, .student, "S1002", "phone", 1)
            let student = try await daemon.headers(.student, "S1002")
            let uri = "/v1/students/S1002/sessions/revoke"
            let ops = try await daemon.headers(.ops, "amina", [.contentType: "application/json"])
            let opsBare = try await daemon.headers(.ops, "amina")
            let opsText = try await daemon.headers(.ops, "amina", [.contentType: "text/plain"])
            daemon.clock.advance(by: 5)
            let refusals: [(HTTPFields, String?, HTTPResponse.Status, String)] = [
                (opsBare, nil, .unprocessableContent, "reason_required"),
                (ops, "{}", .unprocessableContent, "reason_required"),
                (ops, #"{"reason": "  "}"#, .unprocessableContent, "reason_required"),
                (opsText, "lost phone", .unsupportedMediaType, "unsupported_media_type"),
                (ops, #"{"reason": "lost phone", "force": true}"#, .badRequest, "invalid_body"),
            ]
            for (headers, body, status, code) in refusals {
                let refused = try await client.execute(uri: uri, method: .post, headers: headers, body: body.map { ByteBuffer(string: $0) })
                #expect(refused.status == status && refused.json?["code"] as? String == code, "\(body ?? "no body"): \(String(buffer: refused.body))")
            }
            #expect(try await client.execute(uri: "/v1/students/S1002/timeline", method: .get, headers: student).status == .ok,
                    "a refused request signed no one out")
            #expect(try await daemon.runtime.database.devices(owner: .student, ownerId: "S1002").count == 1)

            let done = try await client.execute(uri: uri, method: .post, headers: ops,
                                                body: ByteBuffer(string: #"{"reason": "Phone stolen, reported by the parent"}"#))
            #expect(done.status == .ok && done.json?["devices_removed"] as? Int == 1, "\(String(buffer: done.body))")
            let refused = try await client.execute(uri: "/v1/students/S1002/timeline", method: .get, headers: student)
            #expect(refused.status == .unauthorized && refused.json?["code"] as? String == "revoked_token")

            let audit = try await client.execute(uri: "/v1/audit?student=S1002", method: .get, headers: try await daemon.headers(.ops, "amina"))
            let entry = try #require((audit.json?["entries"] as? [[String: Any]])?.first { $0["action"] as? String == "sessions_revoked" },
                                     "\(String(buffer: audit.body))")
            #expect(entry["actor"] as? String == "amina" && entry["student_id"] as? String == "S1002")
            #expect(entry["reason"] as? String == "Phone stolen, reported by the parent")
            #expect((entry["after"] as? [String: Any])?["devices_removed"] as? Int == 1)

            for (path, code) in [("/v1/students/S9999/sessions/revoke", "unknown_student"), ("/v1/coaches/C99/sessions/revoke", "unknown_coach")] {
                let unknown = try await client.execute(uri: path, method: .post, headers: ops, body: ByteBuffer(string: #"{"reason": "x"}"#))
                #expect(unknown.status == .notFound && unknown.json?["code"] as? String == code, "\(path)")
            }
            guard case .success = try await daemon.runtime.database.erase(studentId: "S1011", force: true, by: "amina", reason: "asked",
                                                                        now: daemon.clock.now) else {
                Issue.record("S1011 not erased")
                return
            }
            let erased = try await client.execute(uri: "/v1/students/S1011/sessions/revoke", method: .post, headers: ops,
                                                  body: ByteBuffer(string: #"{"reason": "x"}"#))
            #expect(erased.status == .notFound && erased.json?["code"] as? String == "unknown_student")
        }
    }

    @Test("a coach signs out everywhere: their desk session ends (the cookie is 401 session_ended), their phone is gone, their earlier token is 401 revoked_token and one a second later works")
    func coachRevokes() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let secret = DeskSecret.make()
            let session = try await daemon.runtime.database.startDeskSession(
                coachId: "C01", sessionHash: DeskSecret.hash(secret), csrfToken: DeskSecret.make(), lifetime: 86_400, now: daemon.clock.now)
            #expect(session != nil)
            let cookie: HTTPFields = [.cookie: "\(DeskSessions.cookieName)=\(secret)"]
            let queue = "/v1/coaches/C01/queue"
            #expect(try await client.execute(uri: queue, method: .get, headers: cookie).status == .ok)
            try await Self.register(client, daemon, .coach, "C01", "tablet", 1)
            let earlier = try await daemon.headers(.coach, "C01")
            #expect(try await client.execute(uri: queue, method: .get, headers: earlier).status == .ok)

            daemon.clock.advance(by: 30)
            let revoked = try await client.execute(uri: "/v1/coaches/C01/sessions/revoke", method: .post, headers: earlier)
            #expect(revoked.status == .ok, "\(String(buffer: revoked.body))")
            #expect(revoked.json?["desk_sessions_ended"] as? Int == 1 && revoked.json?["devices_removed"] as? Int == 1)

            let desk = try await client.execute(uri: queue, method: .get, headers: cookie)
            #expect(desk.status == .unauthorized && desk.json?["code"] as? String == "session_ended")
            let old = try await client.execute(uri: queue, method: .get, headers: earlier)
            #expect(old.status == .unauthorized && old.json?["code"] as? String == "revoked_token")
            #expect(try await daemon.runtime.database.devices(owner: .coach, ownerId: "C01").isEmpty)
            #expect(try await client.execute(uri: "/v1/coaches/C02/queue", method: .get,
                                             headers: try await daemon.headers(.coach, "C02")).status == .ok, "another coach is untouched")

            daemon.clock.advance(by: 1)
            #expect(try await client.execute(uri: queue, method: .get, headers: try await daemon.headers(.coach, "C01")).status == .ok)
        }
    }

    @Test("no one signs out someone else: a student another student or a coach, a coach a student or another coach — 403, and nothing changes; no token is 401")
    func othersAreForbidden() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let victim = try await daemon.headers(.student, "S1002")
            let coach = try await daemon.headers(.coach, "C01")
            for (role, subject, path) in [(Role.student, "S1001", "students/S1002"), (.student, "S1001", "coaches/C01"),
                                          (.coach, "C01", "students/S1001"), (.coach, "C02", "coaches/C01"),
                                          (.student, "S1001", "students/S9999")] {
                let refused = try await client.execute(uri: "/v1/\(path)/sessions/revoke", method: .post,
                                                       headers: try await daemon.headers(role, subject))
                #expect(refused.status == .forbidden && refused.json?["code"] as? String == "forbidden", "\(role) \(subject) → \(path)")
            }
            let anonymous = try await client.execute(uri: "/v1/students/S1002/sessions/revoke", method: .post)
            #expect(anonymous.status == .unauthorized && anonymous.json?["code"] as? String == "missing_token")
            #expect(try await client.execute(uri: "/v1/students/S1002/timeline", method: .get, headers: victim).status == .ok)
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: coach).status == .ok)
        }
    }

    @Test("the identity provider's tokens alike: a student's RS256 and a coach's ES256 token issued before are 401 revoked_token, one with no iat too; one issued after works")
    func providerTokens() async throws {
        let server = JWKSServer()
        try await server.serve { url in
            let daemon = try await TestDaemon(configure: { configuration in
                configuration.oidc = .init(issuer: OIDCSignInTests.issuer, audience: OIDCSignInTests.audience, jwksURL: url, jwksFile: nil,
                                           opsSubjects: [:], subjectIsId: false)
            })
            defer { daemon.remove() }
            let provider = try await OIDCSignInTests().provider(now: daemon.clock.now)
            server.publish(provider.jwks.data)
            try await daemon.runtime.database.engine.write { db in
                try db.execute(sql: "UPDATE student SET subject = 'auth0|aisha' WHERE id = 'S1001'")
                try db.execute(sql: "UPDATE coach SET subject = 'auth0|c01' WHERE id = 'C01'")
            }
            try await daemon.application().live { client in
                func get(_ uri: String, _ name: String) async throws -> LiveAnswer {
                    let token = try #require(provider.tokens[name], "\(name)")
                    return try await client.execute(uri: uri, method: .get, headers: [.authorization: "Bearer \(token)"])
                }
                let timeline = "/v1/students/S1001/timeline", queue = "/v1/coaches/C01/queue"
                #expect(try await get(timeline, "valid_rs256").status == .ok)
                #expect(try await get(queue, "valid_es256").status == .ok)
                #expect(try await get(queue, "coach_no_iat").status == .ok, "never signed out: a token without iat is not looked at for it")

                let ops = try await daemon.headers(.ops, "amina", [.contentType: "application/json"])
                for path in ["/v1/students/S1001/sessions/revoke", "/v1/coaches/C01/sessions/revoke"] {
                    let done = try await client.execute(uri: path, method: .post, headers: ops, body: ByteBuffer(string: #"{"reason": "Lost phone"}"#))
                    #expect(done.status == .ok, "\(path): \(String(buffer: done.body))")
                }
                for (uri, name) in [(timeline, "valid_rs256"), (queue, "valid_es256"), (queue, "coach_no_iat")] {
                    let refused = try await get(uri, name)
                    #expect(refused.status == .unauthorized && refused.json?["code"] as? String == "revoked_token", "\(name): \(String(buffer: refused.body))")
                }
                daemon.clock.advance(by: 2)
                #expect(try await get(timeline, "issued_later").status == .ok, "issued two seconds after the sign-out")
            }
        }
    }

    @Test("the rule by iat: nothing to check without a sign-out; a token of an earlier or the same second, or with no iat, is refused; a later second passes")
    func issuedAtRule() throws {
        let revokedAt = Date(timeIntervalSince1970: 1_795_359_600.25)
        try BearerVerifier.checkNotRevoked(issuedAt: nil, validAfter: nil)
        try BearerVerifier.checkNotRevoked(issuedAt: Date(timeIntervalSince1970: 0), validAfter: nil)
        for issuedAt in [nil, Date(timeIntervalSince1970: 1_795_359_599), Date(timeIntervalSince1970: 1_795_359_600),
                         Date(timeIntervalSince1970: 1_795_359_600.9)] as [Date?] {
            #expect(throws: AuthError.revokedToken) { try BearerVerifier.checkNotRevoked(issuedAt: issuedAt, validAfter: revokedAt) }
        }
        try BearerVerifier.checkNotRevoked(issuedAt: Date(timeIntervalSince1970: 1_795_359_601), validAfter: revokedAt)
        #expect(AuthError.revokedToken.code == "revoked_token")
        #expect(AuthError.revokedToken.challenge.contains(#"error="invalid_token""#))
    }
}
