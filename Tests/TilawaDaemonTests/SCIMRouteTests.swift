import Foundation
import HTTPTypes
import Hummingbird
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaCore
import TilawaTestSupport

/// SCIM 2.0 provisioning (DESIGN §16, issue 46): `/scim/v2` answers the identity provider's
/// client, with the token of `scim.token_file` only, in SCIM's own words (RFC 7644).
@Suite("SCIM provisioning over HTTP: the provider's sequence, paging, versions, refusals as SCIM errors, the roster joining by subject")
struct SCIMRouteTests {
    static let token = "scim-0123456789abcdef0123456789abcdef"
    static let patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
    static let tilawa = "urn:tilawa:params:scim:schemas:extension:tilawa:2.0:User"

    /// A daemon with SCIM on: the token in the file `scim.token_file` names.
    static func daemon(defaultRole: TilawaConfiguration.SCIM.Role = .student) async throws -> TestDaemon {
        try await TestDaemon(configure: { configuration in
            let path = configuration.workingDirectory + "/scim.token"
            FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8))
            configuration.scim = .init(tokenFile: path, defaultRole: defaultRole)
        })
    }

    /// A SCIM request with the SCIM token (or `headers` instead of it).
    static func scim(_ client: LiveClient, _ method: HTTPRequest.Method, _ path: String, _ json: String? = nil,
                     headers: HTTPFields? = nil, extra: HTTPFields = [:]) async throws -> LiveAnswer {
        var fields = headers ?? [.authorization: "Bearer \(token)"]
        if json != nil { fields[.contentType] = "application/scim+json" }
        for field in extra { fields[field.name] = field.value }
        return try await client.execute(uri: "/scim/v2" + path, method: method, headers: fields, body: json.map { ByteBuffer(string: $0) })
    }

    static func query(_ filter: String) -> String {
        filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// The state of the student's latest enrolment.
    static func enrolmentState(_ daemon: TestDaemon, _ id: String) async throws -> String? {
        try await daemon.runtime.database.engine.read { db in
            try String.fetchOne(db, sql: "SELECT state FROM enrolment WHERE studentId = ? ORDER BY id DESC LIMIT 1", arguments: [id])
        }
    }

    /// A SCIM error body: the Error schema, the status as text, and `scimType` when given.
    static func expectError(_ answer: LiveAnswer, _ status: HTTPResponse.Status, _ scimType: String? = nil, _ comment: Comment? = nil) {
        #expect(answer.status == status, "\(comment?.rawValue ?? ""): \(String(buffer: answer.body))")
        #expect(answer.headers[.contentType] == "application/scim+json")
        #expect(answer.json?["schemas"] as? [String] == ["urn:ietf:params:scim:api:messages:2.0:Error"])
        #expect(answer.json?["status"] as? String == "\(status.code)")
        #expect(answer.json?["scimType"] as? String == scimType, "\(String(buffer: answer.body))")
        #expect((answer.json?["detail"] as? String)?.isEmpty == false)
    }

    @Test("""
        a provider's sequence: create (a new student awaiting placement, P100001, who records the placement assessment at once and \
        signs in by userName), filter by userName and by work email, PATCH active false as Okta sends it (their earlier token 401 \
        revoked_token, the enrolment paused, both audited as scim), PATCH back as Entra ID sends it (resumed), PUT, DELETE (404 after, \
        never erased)
        """)
    func providerSequence() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let created = try await Self.scim(client, .post, "/Users", """
                {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "idp|maryam", "externalId": "00u1",
                 "name": {"givenName": "Maryam", "familyName": "Saleh"}, "title": "ignored",
                 "emails": [{"value": "maryam@example.org", "type": "work", "primary": true}], "active": true}
                """)
            #expect(created.status == .created, "\(String(buffer: created.body))")
            #expect(created.headers[.contentType] == "application/scim+json")
            let id = try #require(created.json?["id"] as? String)
            #expect(id == "P100001")
            #expect(created.headers[.eTag] == #"W/"1""#)
            #expect(created.headers[.location]?.hasSuffix("/scim/v2/Users/P100001") == true)
            #expect((created.json?[Self.tilawa] as? [String: Any])?["role"] as? String == "student")
            #expect(created.json?["title"] == nil, "an attribute Tilawa does not keep is not kept")
            #expect((created.json?["meta"] as? [String: Any])?["version"] as? String == #"W/"1""#)
            #expect(try await daemon.runtime.database.subjectOwner("idp|maryam", subjectIsId: false)?.id == id, "userName is the sign-in subject")
            #expect(try await Self.enrolmentState(daemon, id) == "active")

            let upload = try await daemon.headers(.student, id, [.contentType: "audio/ogg"])
            let assessment = try await client.execute(uri: "/v1/students/\(id)/weeks/assessment/submissions", method: .post, headers: upload,
                                                      body: try TestDaemon.fixture("speech.opus"))
            #expect(assessment.status == .created, "awaiting placement: the assessment at once: \(String(buffer: assessment.body))")

            let byName = try await Self.scim(client, .get, "/Users?filter=" + Self.query(#"userName eq "IDP|Maryam""#))
            #expect(byName.status == .ok && byName.json?["totalResults"] as? Int == 1, "\(String(buffer: byName.body))")
            #expect(byName.json?["schemas"] as? [String] == ["urn:ietf:params:scim:api:messages:2.0:ListResponse"])
            #expect((byName.json?["Resources"] as? [[String: Any]])?.first?["id"] as? String == id)
            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"userName": "IDP|MARYAM"}"#), .conflict, "uniqueness",
                             "userName is not case-exact: the filter finds her, so no second user may take it")
            let byEmail = try await Self.scim(client, .get, "/Users?filter=" + Self.query(#"emails[type eq "work"].value eq "MARYAM@example.org""#))
            #expect(byEmail.json?["totalResults"] as? Int == 1, "\(String(buffer: byEmail.body))")
            let otherType = try await Self.scim(client, .get, "/Users?filter=" + Self.query(#"emails[type eq "home"].value eq "maryam@example.org""#))
            #expect(otherType.json?["totalResults"] as? Int == 0)
            let both = try await Self.scim(client, .get, "/Users?filter=" + Self.query(#"externalId eq "00u1" and userName eq "idp|maryam""#))
            #expect(both.json?["totalResults"] as? Int == 1)

            daemon.clock.advance(by: 60)
            let earlier = try await daemon.headers(.student, id)
            daemon.clock.advance(by: 60)
            let deactivated = try await Self.scim(client, .patch, "/Users/\(id)", """
                {"schemas": ["\(Self.patchOp)"], "Operations": [{"op": "replace", "value": {"active": false}}]}
                """)
            #expect(deactivated.status == .ok && deactivated.json?["active"] as? Bool == false, "\(String(buffer: deactivated.body))")
            #expect(deactivated.headers[.eTag] == #"W/"2""#)
            let refused = try await client.execute(uri: "/v1/students/\(id)/timeline", method: .get, headers: earlier)
            #expect(refused.status == .unauthorized && refused.json?["code"] as? String == "revoked_token")
            #expect(try await Self.enrolmentState(daemon, id) == "paused")
            let audit = try await daemon.runtime.database.audit(AuditFilter(studentId: id), after: nil, limit: 50).entries
            #expect(audit.contains { $0.action == "sessions_revoked" && $0.actor == "scim" }, "\(audit)")
            #expect(audit.contains { $0.action == "enrolment_changed" && $0.actor == "scim" }, "\(audit)")
            // Deprovisioned: a token issued after it names no one either, until the provider turns them back on.
            daemon.clock.advance(by: 1)
            let fresh = try await client.execute(uri: "/v1/students/\(id)/timeline", method: .get, headers: try await daemon.headers(.student, id))
            #expect(fresh.status == .unauthorized && fresh.json?["code"] as? String == "unknown_subject", "\(String(buffer: fresh.body))")

            daemon.clock.advance(by: 60)
            let reactivated = try await Self.scim(client, .patch, "/Users/\(id)", """
                {"schemas": ["\(Self.patchOp)"], "Operations": [{"op": "Replace", "path": "active", "value": "True"}]}
                """)
            #expect(reactivated.status == .ok && reactivated.json?["active"] as? Bool == true, "\(String(buffer: reactivated.body))")
            #expect(try await Self.enrolmentState(daemon, id) == "active", "resumed")
            daemon.clock.advance(by: 1)
            #expect(try await client.execute(uri: "/v1/students/\(id)/timeline", method: .get,
                                             headers: try await daemon.headers(.student, id)).status == .ok, "signed in again")

            let renamed = try await Self.scim(client, .patch, "/Users/\(id)", """
                {"schemas": ["\(Self.patchOp)"], "Operations": [
                  {"op": "Add", "path": "emails[type eq \\"home\\"].value", "value": "m.saleh@example.net"},
                  {"op": "replace", "path": "name.givenName", "value": "Mariam"},
                  {"op": "remove", "path": "externalId"}]}
                """)
            #expect(renamed.status == .ok, "\(String(buffer: renamed.body))")
            #expect((renamed.json?["emails"] as? [[String: Any]])?.count == 2)
            #expect((renamed.json?["name"] as? [String: Any])?["givenName"] as? String == "Mariam")
            #expect(renamed.json?["externalId"] == nil)

            let replaced = try await Self.scim(client, .put, "/Users/\(id)", """
                {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "idp|maryam",
                 "name": {"formatted": "Maryam S. Saleh"}, "displayName": "Maryam", "active": true}
                """)
            #expect(replaced.status == .ok, "\(String(buffer: replaced.body))")
            #expect(replaced.json?["emails"] == nil, "PUT unassigns what it leaves out")
            let name = try await daemon.runtime.database.engine.read { db in
                try String.fetchOne(db, sql: "SELECT name FROM student WHERE id = ?", arguments: [id])
            }
            #expect(name == "Maryam S. Saleh", "SCIM names the person")

            let deleted = try await Self.scim(client, .delete, "/Users/\(id)")
            #expect(deleted.status == .noContent, "\(String(buffer: deleted.body))")
            Self.expectError(try await Self.scim(client, .get, "/Users/\(id)"), .notFound, nil, "deleted")
            #expect(try await Self.scim(client, .get, "/Users").json?["totalResults"] as? Int == 0)
            #expect(try await Self.enrolmentState(daemon, id) == "paused")
            #expect(try await daemon.runtime.database.isErased(studentId: id) == false, "never an erasure")
            let kept = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM student WHERE id = ? AND erasedAt IS NULL", arguments: [id])
            }
            #expect(kept == 1, "the student and their history stay")
        }
    }

    @Test("paging: startIndex counts from 1 and count is capped at 200, totalResults counts every match; attributes and excludedAttributes narrow each resource")
    func paging() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            for number in 1...5 {
                let created = try await Self.scim(client, .post, "/Users", """
                    {"userName": "pager-\(number)", "displayName": "Pager \(number)", "emails": [{"value": "p\(number)@example.org"}]}
                    """)
                #expect(created.status == .created, "\(String(buffer: created.body))")
            }
            let page = try await Self.scim(client, .get, "/Users?startIndex=2&count=2")
            #expect(page.json?["totalResults"] as? Int == 5 && page.json?["startIndex"] as? Int == 2 && page.json?["itemsPerPage"] as? Int == 2)
            #expect((page.json?["Resources"] as? [[String: Any]])?.compactMap { $0["userName"] as? String } == ["pager-2", "pager-3"])
            let capped = try await Self.scim(client, .get, "/Users?count=5000")
            #expect(capped.json?["itemsPerPage"] as? Int == 5, "roster students without SCIM are not listed")
            let none = try await Self.scim(client, .get, "/Users?count=0")
            #expect(none.json?["totalResults"] as? Int == 5 && (none.json?["Resources"] as? [Any])?.isEmpty == true)
            let past = try await Self.scim(client, .get, "/Users?startIndex=9")
            #expect(past.json?["totalResults"] as? Int == 5 && (past.json?["Resources"] as? [Any])?.isEmpty == true)
            let narrow = try await Self.scim(client, .get, "/Users?count=1&attributes=userName")
            let first = try #require((narrow.json?["Resources"] as? [[String: Any]])?.first)
            #expect(Set(first.keys) == ["schemas", "id", "userName"], "\(first.keys)")
            let without = try await Self.scim(client, .get, "/Users/P100001?excludedAttributes=emails,displayName")
            #expect(without.json?["emails"] == nil && without.json?["displayName"] == nil && without.json?["userName"] as? String == "pager-1")
        }
    }

    @Test("versions: ETag W/\"n\" and meta.version move with each change; If-Match of another version is 412 on PUT, PATCH and DELETE and changes nothing; If-None-Match of the current one is 304")
    func versions() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let created = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|omar", "displayName": "Omar"}"#)
            let id = try #require(created.json?["id"] as? String)
            let put = #"{"userName": "idp|omar", "displayName": "Omar F."}"#
            let first = try await Self.scim(client, .put, "/Users/\(id)", put, extra: [.ifMatch: #"W/"1""#])
            #expect(first.status == .ok && first.headers[.eTag] == #"W/"2""#, "\(String(buffer: first.body))")
            Self.expectError(try await Self.scim(client, .put, "/Users/\(id)", #"{"userName": "idp|omar", "displayName": "stale"}"#,
                                                 extra: [.ifMatch: #"W/"1""#]), .preconditionFailed, nil, "PUT")
            Self.expectError(try await Self.scim(client, .patch, "/Users/\(id)",
                                                 #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "displayName", "value": "x"}]}"#,
                                                 extra: [.ifMatch: #"W/"7""#]), .preconditionFailed, nil, "PATCH")
            Self.expectError(try await Self.scim(client, .delete, "/Users/\(id)", extra: [.ifMatch: #"W/"1""#]), .preconditionFailed, nil, "DELETE")
            let current = try await Self.scim(client, .get, "/Users/\(id)")
            #expect(current.json?["displayName"] as? String == "Omar F." && current.headers[.eTag] == #"W/"2""#)
            #expect(try await Self.scim(client, .get, "/Users/\(id)", extra: [.ifNoneMatch: #"W/"2""#]).status == .notModified)
            #expect(try await Self.scim(client, .delete, "/Users/\(id)", extra: [.ifMatch: #"W/"2""#]).status == .noContent)
        }
    }

    @Test("only the SCIM token: none, a wrong one and a Tilawa JWT are 401 SCIM errors; the SCIM token is refused on /v1; with SCIM off /scim/v2 is 404")
    func credentials() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let jwt = try await daemon.token(.ops, "ops")
            for (headers, why) in [([:], "no token"), ([.authorization: "Bearer wrong-0123456789abcdef0123456789abcdef"], "a wrong token"),
                                   ([.authorization: "Bearer \(jwt)"], "an operator's JWT"), ([.authorization: "Basic c2NpbTpzY2lt"], "Basic")] as [(HTTPFields, String)] {
                let refused = try await Self.scim(client, .get, "/Users", headers: headers)
                Self.expectError(refused, .unauthorized, nil, Comment(rawValue: why))
                #expect(refused.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            let elsewhere = try await client.execute(uri: "/v1/status", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(elsewhere.status == .unauthorized && elsewhere.json?["code"] as? String == "invalid_token")
            #expect(try await Self.scim(client, .get, "/ServiceProviderConfig").status == .ok)
        }
        let off = try await TestDaemon()
        defer { off.remove() }
        try await off.application().live { client in
            Self.expectError(try await Self.scim(client, .get, "/Users"), .notFound, nil, "SCIM off")
        }
    }

    @Test("discovery and refusals: ServiceProviderConfig, ResourceTypes (User only), Schemas by id; 405 for another method, 404 for an unknown path, 501 for /.search; 400 invalidValue, invalidSyntax, invalidPath and invalidFilter, 409 uniqueness")
    func discoveryAndRefusals() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let config = try await Self.scim(client, .get, "/ServiceProviderConfig")
            #expect((config.json?["patch"] as? [String: Any])?["supported"] as? Bool == true)
            #expect((config.json?["filter"] as? [String: Any])?["maxResults"] as? Int == 200)
            #expect((config.json?["bulk"] as? [String: Any])?["supported"] as? Bool == false)
            #expect(((config.json?["authenticationSchemes"] as? [[String: Any]])?.first)?["type"] as? String == "oauthbearertoken")
            let types = try await Self.scim(client, .get, "/ResourceTypes")
            #expect((types.json?["Resources"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["User"])
            #expect(try await Self.scim(client, .get, "/ResourceTypes/User").json?["endpoint"] as? String == "/Users")
            let extensionSchema = try await Self.scim(client, .get, "/Schemas/\(Self.tilawa)")
            #expect((extensionSchema.json?["attributes"] as? [[String: Any]])?.first?["name"] as? String == "role")
            #expect(try await Self.scim(client, .get, "/Schemas").json?["totalResults"] as? Int == 2)
            Self.expectError(try await Self.scim(client, .get, "/Schemas/urn:example:nothing"), .notFound)
            let wrongMethod = try await Self.scim(client, .post, "/Schemas", "{}")
            Self.expectError(wrongMethod, .methodNotAllowed)
            #expect(wrongMethod.headers[.allow]?.contains("GET") == true)
            Self.expectError(try await Self.scim(client, .get, "/Groups"), .notFound, nil, "no Groups")
            Self.expectError(try await Self.scim(client, .post, "/.search", "{}"), .notImplemented)

            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"displayName": "No name"}"#), .badRequest, "invalidValue")
            Self.expectError(try await Self.scim(client, .post, "/Users", "not json"), .badRequest, "invalidSyntax")
            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"userName": "idp|x", "active": "maybe"}"#), .badRequest, "invalidValue")
            #expect(try await Self.scim(client, .post, "/Users", #"{"userName": "idp|x"}"#).status == .created)
            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"userName": "idp|x"}"#), .conflict, "uniqueness")
            Self.expectError(try await Self.scim(client, .patch, "/Users/P100001",
                                                 #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "emails[type", "value": "x"}]}"#),
                             .badRequest, "invalidPath")
            Self.expectError(try await Self.scim(client, .patch, "/Users/P100001",
                                                 #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "remove", "path": "userName"}]}"#),
                             .badRequest, "invalidValue")
            Self.expectError(try await Self.scim(client, .patch, "/Users/P100001",
                                                 #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "value": {"\#(Self.tilawa)": {"role": "coach"}}}]}"#),
                             .badRequest, "mutability")
            Self.expectError(try await Self.scim(client, .get, "/Users?filter=" + Self.query(#"userName eq "a" or userName eq "b""#)), .badRequest, "invalidFilter")
            Self.expectError(try await Self.scim(client, .get, "/Users?filter=" + Self.query(#"displayName co "a""#)), .badRequest, "invalidFilter")
            Self.expectError(try await Self.scim(client, .get, "/Users/S1001"), .notFound, nil, "a roster student not provisioned")
        }
    }

    @Test("""
        one person, one row: a roster row naming a provisioned student's subject under another id is that student (joined: placed, no \
        second student, the provider's name kept); a userName that is a roster student's subject links that student; a coach links by \
        subject, an unknown coach is 400 invalidValue, a student's subject under the coach role is 409 uniqueness
        """)
    func oneRowPerPerson() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE student SET subject = 'idp|aisha' WHERE id = 'S1001'")
            try db.execute(sql: "UPDATE student SET subject = 'idp|omar' WHERE id = 'S1002'")
            try db.execute(sql: "UPDATE coach SET subject = 'idp|c02' WHERE id = 'C02'")
        }
        try await daemon.application().live { client in
            let created = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|noura", "name": {"formatted": "Noura Al-Amin"}}"#)
            #expect(created.json?["id"] as? String == "P100001", "\(String(buffer: created.body))")
            let rows = try StudentsCSV.parse("""
                student_id,name,level,coach_id,semester_id,subject
                S2001,Noura (roster),L1,C01,fall-2026,idp|noura

                """, source: "students.csv")
            for _ in 1...2 {
                let summary = try daemon.runtime.database.importRoster(program: nil, students: rows, studentsSource: "students.csv",
                                                                        now: daemon.clock.now)
                #expect(summary.joined.map(\.studentId) == ["P100001"])
            }
            let (placed, name, second) = try await daemon.runtime.database.engine.read { db in
                (try String.fetchOne(db, sql: "SELECT levelId || '/' || coachId FROM enrolment WHERE studentId = 'P100001'"),
                 try String.fetchOne(db, sql: "SELECT name FROM student WHERE id = 'P100001'"),
                 try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM student WHERE id = 'S2001'"))
            }
            #expect(placed == "L1/C01" && name == "Noura Al-Amin" && second == 0, "\(placed ?? "-") \(name ?? "-") \(second ?? -1)")
            #expect(try await Self.scim(client, .get, "/Users/P100001").status == .ok)

            let linked = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|aisha", "displayName": "Aisha R."}"#)
            #expect(linked.status == .created && linked.json?["id"] as? String == "S1001", "\(String(buffer: linked.body))")
            // A student with no subject, who signs in by id: a userName that is the id is them, not a new student.
            let byId = try await Self.scim(client, .post, "/Users", #"{"userName": "S1011"}"#)
            #expect(byId.status == .created && byId.json?["id"] as? String == "S1011", "\(String(buffer: byId.body))")
            let coach = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|c02", "\#(Self.tilawa)": {"role": "coach"}}"#)
            #expect(coach.status == .created && coach.json?["id"] as? String == "C02", "\(String(buffer: coach.body))")
            #expect((coach.json?[Self.tilawa] as? [String: Any])?["role"] as? String == "coach")
            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"userName": "idp|nobody", "\#(Self.tilawa)": {"role": "coach"}}"#),
                             .badRequest, "invalidValue", "coaches come from program.yaml")
            let studentAsCoach = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|omar", "\#(Self.tilawa)": {"role": "coach"}}"#)
            Self.expectError(studentAsCoach, .conflict, "uniqueness", "a student's subject is not a coach's")

            let earlier = try await daemon.headers(.coach, "C02")
            daemon.clock.advance(by: 5)
            let off = try await Self.scim(client, .patch, "/Users/C02", #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "active", "value": false}]}"#)
            #expect(off.status == .ok)
            let refused = try await client.execute(uri: "/v1/coaches/C02/queue", method: .get, headers: earlier)
            #expect(refused.status == .unauthorized && refused.json?["code"] as? String == "revoked_token")
            // Turned off, the coach opens no desk: no login link is made or exchanged, no session started.
            let database = daemon.runtime.database
            let now = daemon.clock.now
            #expect(try await database.createLoginLink(coachId: "C02", secretHash: "h-off", now: now, expiresAt: now + 600) == false)
            #expect(try await database.startDeskSession(coachId: "C02", sessionHash: "s-off", csrfToken: "c", lifetime: 600, now: now) == nil)
            if case .queued = try await database.requestDeskLink(who: "C02", secretHash: "h-off-2", url: { _ in "https://x/" }, now: now,
                                                                 expiresAt: now + 600, interval: 60) {
                Issue.record("a login link was queued for a deprovisioned coach")
            }
        }
    }

    @Test("an operator who takes a deprovisioning pause over (resumes, then pauses for their own reason) keeps theirs when the provider turns the student on again")
    func operatorsPauseStays() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let created = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|yasmin", "displayName": "Yasmin"}"#)
            let id = try #require(created.json?["id"] as? String, "\(String(buffer: created.body))")
            let off = #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "active", "value": false}]}"#
            #expect(try await Self.scim(client, .patch, "/Users/\(id)", off).status == .ok)
            #expect(try await Self.enrolmentState(daemon, id) == "paused")
            let database = daemon.runtime.database, policy = daemon.runtime.policy
            for state in [RuleOverrides.Standing.active, .paused] {
                daemon.clock.advance(by: 60)
                let changed = try await database.apply(.changeEnrolment(studentId: id, coachId: nil, levelId: nil, state: state), by: "ops",
                                                       reason: "the family asked", policy: policy, now: daemon.clock.now)
                if case let .failure(refusal) = changed { Issue.record("\(refusal)") }
            }
            daemon.clock.advance(by: 60)
            let on = #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "active", "value": true}]}"#
            #expect(try await Self.scim(client, .patch, "/Users/\(id)", on).status == .ok)
            #expect(try await Self.enrolmentState(daemon, id) == "paused", "the operator's pause is not the provider's to lift")
        }
    }

    @Test("""
        a deleted user's userName is free (RFC 7644 §3.6): POSTed again it is the same student (resumed); taken by another user's \
        PATCH, the deleted student lets the subject go and keeps their row, history and pause; an erased student's userName stays \
        refused (409) on POST and PATCH
        """)
    func deletedUserNameFree() async throws {
        let daemon = try await Self.daemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let first = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|hana", "displayName": "Hana"}"#)
            let hana = try #require(first.json?["id"] as? String, "\(String(buffer: first.body))")
            let second = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|huda", "displayName": "Huda"}"#)
            let huda = try #require(second.json?["id"] as? String, "\(String(buffer: second.body))")
            func rename(to userName: String) -> String {
                #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "userName", "value": "\#(userName)"}]}"#
            }
            Self.expectError(try await Self.scim(client, .patch, "/Users/\(huda)", rename(to: "idp|hana")), .conflict, "uniqueness",
                             "the userName of a user that exists is theirs")

            daemon.clock.advance(by: 60)
            #expect(try await Self.scim(client, .delete, "/Users/\(hana)").status == .noContent)
            #expect(try await Self.enrolmentState(daemon, hana) == "paused")
            daemon.clock.advance(by: 60)
            let again = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|hana", "displayName": "Hana"}"#)
            #expect(again.status == .created && again.json?["id"] as? String == hana, "still her sign-in subject: the same student: \(String(buffer: again.body))")
            #expect(try await Self.enrolmentState(daemon, hana) == "active", "resumed")

            daemon.clock.advance(by: 60)
            #expect(try await Self.scim(client, .delete, "/Users/\(hana)").status == .noContent)
            daemon.clock.advance(by: 60)
            let taken = try await Self.scim(client, .patch, "/Users/\(huda)", rename(to: "idp|hana"))
            #expect(taken.status == .ok && taken.json?["userName"] as? String == "idp|hana", "\(String(buffer: taken.body))")
            #expect(try await daemon.runtime.database.subjectOwner("idp|hana", subjectIsId: false)?.id == huda)
            let byName = try await Self.scim(client, .get, "/Users?filter=" + Self.query(#"userName eq "idp|hana""#))
            #expect((byName.json?["Resources"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [huda], "\(String(buffer: byName.body))")
            let (subject, kept) = try await daemon.runtime.database.engine.read { db in
                (try String.fetchOne(db, sql: "SELECT subject FROM student WHERE id = ?", arguments: [hana]),
                 try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM student WHERE id = ? AND erasedAt IS NULL", arguments: [hana]))
            }
            #expect(subject == nil && kept == 1, "Hana keeps her row without the subject")
            #expect(try await Self.enrolmentState(daemon, hana) == "paused", "and her pause")
            Self.expectError(try await Self.scim(client, .get, "/Users/\(hana)"), .notFound)
            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"userName": "idp|hana"}"#), .conflict, "uniqueness",
                             "now Huda's")

            // An erasure is final: the erased student's userName is never free.
            let third = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|rana"}"#)
            let rana = try #require(third.json?["id"] as? String, "\(String(buffer: third.body))")
            daemon.clock.advance(by: 60)
            #expect(try await Self.scim(client, .delete, "/Users/\(rana)").status == .noContent)
            daemon.clock.advance(by: 60)
            guard case .success = try await daemon.runtime.database.erase(studentId: rana, force: true, by: "amina", reason: "asked",
                                                                          now: daemon.clock.now) else {
                Issue.record("not erased")
                return
            }
            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"userName": "idp|rana"}"#), .conflict, nil, "erased: POST")
            Self.expectError(try await Self.scim(client, .patch, "/Users/\(huda)", rename(to: "idp|rana")), .conflict, nil, "erased: PATCH")
        }
    }

    @Test("a userName that is an operator's subject (oidc.ops_subjects) is 409 uniqueness on create, PUT and PATCH: an operator's sign-in never becomes a student's")
    func operatorSubjectRefused() async throws {
        let daemon = try await TestDaemon(configure: { configuration in
            let path = configuration.workingDirectory + "/scim.token"
            FileManager.default.createFile(atPath: path, contents: Data((Self.token + "\n").utf8))
            configuration.scim = .init(tokenFile: path, defaultRole: .student)
            configuration.oidc = .init(issuer: "https://id.example.org", audience: "tilawa", jwksURL: URL(string: "https://id.example.org/jwks"),
                                       jwksFile: nil, opsSubjects: ["idp|amina": "amina"], subjectIsId: false)
        })
        defer { daemon.remove() }
        try await daemon.application().live { client in
            Self.expectError(try await Self.scim(client, .post, "/Users", #"{"userName": "idp|amina"}"#), .conflict, "uniqueness")
            let created = try await Self.scim(client, .post, "/Users", #"{"userName": "idp|zaid"}"#)
            let id = try #require(created.json?["id"] as? String, "\(String(buffer: created.body))")
            Self.expectError(try await Self.scim(client, .put, "/Users/\(id)", #"{"userName": "idp|amina"}"#), .conflict, "uniqueness")
            Self.expectError(try await Self.scim(client, .patch, "/Users/\(id)",
                                                 #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "userName", "value": "idp|amina"}]}"#),
                             .conflict, "uniqueness")
            #expect(try await daemon.runtime.database.subjectOwner("idp|amina", subjectIsId: false) == nil, "nothing took the operator's subject")
        }
    }

    @Test("scim.default_role coach: a user without the extension links the coach whose id is the userName when they have no subject")
    func defaultRoleCoach() async throws {
        let daemon = try await Self.daemon(defaultRole: .coach)
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let linked = try await Self.scim(client, .post, "/Users", #"{"userName": "C03"}"#)
            #expect(linked.status == .created && linked.json?["id"] as? String == "C03", "\(String(buffer: linked.body))")
            Self.expectError(try await Self.scim(client, .patch, "/Users/C03",
                                                 #"{"schemas": ["\#(Self.patchOp)"], "Operations": [{"op": "replace", "path": "userName", "value": "C01"}]}"#),
                             .badRequest, "mutability")
        }
    }

    @Test("the token file: missing, shorter than 32 characters or holding a space stops start-up naming scim.token_file; a good one is read without its newline")
    func tokenFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var configuration = TilawaConfiguration(workingDirectory: scratch.path)
        #expect(try configuration.readSCIMToken() == nil, "off without scim.token_file")
        let cases: [(String?, String)] = [(nil, "missing"), ("short-token\n", "short"),
                                          (String(repeating: "a", count: 20) + " " + String(repeating: "b", count: 20), "a space")]
        for (index, (content, why)) in cases.enumerated() {
            let path = scratch.path("token-\(index)")
            if let content { try content.write(toFile: path, atomically: true, encoding: .utf8) }
            configuration.scim = .init(tokenFile: path)
            let candidate = configuration
            #expect(throws: ConfigurationError.self, "\(why)") { try candidate.readSCIMToken() }
        }
        try (Self.token + "\n").write(toFile: scratch.path("good"), atomically: true, encoding: .utf8)
        configuration.scim = .init(tokenFile: scratch.path("good"))
        #expect(try configuration.readSCIMToken() == Array(Self.token.utf8))
    }
}
