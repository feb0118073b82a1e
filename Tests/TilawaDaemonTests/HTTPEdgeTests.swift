import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TilawaCore
@testable import TilawaDaemon
import TilawaTestSupport

/// How the HTTP edges answer: framing, methods, sizes, auth syntax, ids and cursors, existence.
@Suite("HTTP edges (live server on loopback)")
struct HTTPEdgeTests {
    private func submit(_ daemon: TestDaemon, client: LiveClient, student: String = "S1001") async throws -> String {
        let response = try await client.execute(uri: "/v1/students/\(student)/weeks/12/submissions", method: .post,
                                                headers: try await daemon.headers(.student, student, [.contentType: "audio/ogg"]),
                                                body: try TestDaemon.fixture("speech.opus"))
        return try #require(response.json?["id"] as? String)
    }

    @Test("Expect: 100-continue is answered once the token passes, then the upload proceeds; a refusal before it closes the connection")
    func expectContinue() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let body = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
            let token = try await daemon.token(.student, "S1001")
            let socket = try RawHTTPConnection(port: port)
            defer { socket.close() }
            try socket.send("POST /v1/students/S1001/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: audio/ogg\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
            let interim = await socket.read(until: "\r\n\r\n")
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue"), "got: \(interim.prefix(80))")
            try socket.send(body)
            let final = await socket.read(until: "\r\n\r\n")
            #expect(final.hasPrefix("HTTP/1.1 201"), "got: \(final.prefix(80))")

            let refused = try RawHTTPConnection(port: port)
            defer { refused.close() }
            try refused.send("POST /v1/students/S1001/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer nope\r\n"
                + "Content-Type: audio/ogg\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
            let answer = await refused.read(until: "\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 401"), "got: \(answer.prefix(80))")
            #expect(answer.lowercased().contains("connection: close"))
            #expect(await refused.closedByServer(), "the connection stayed open for a body nobody reads")
        }
    }

    @Test("An HTTP/1.0 request without keep-alive closes after its answer; chunked is fine, gzip is 501")
    func framing() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let old = try RawHTTPConnection(port: port)
            defer { old.close() }
            try old.send("GET /healthz HTTP/1.0\r\n\r\n")
            #expect(await old.read(until: "\r\n\r\n").contains(" 200 "))
            #expect(await old.closedByServer(), "an HTTP/1.0 connection stayed open")

            let gzip = try RawHTTPConnection(port: port)
            defer { gzip.close() }
            try gzip.send("POST /v1/students/S1001/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\n"
                + "Authorization: Bearer \(try await daemon.token(.student, "S1001"))\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            let answer = await gzip.read(until: "\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 501"), "got: \(answer.prefix(80))")
            #expect(await gzip.closedByServer())
            #expect(try await daemon.runtime.database.attemptStatus(studentId: "S1001", policy: daemon.runtime.policy, now: daemon.clock.now)?.used == 0)
        }
    }

    @Test("A wrong method on a known path is 405 with Allow; an unknown path 404; a JSON body over its limit 413")
    func methodsAndSizes() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await submit(daemon, client: client)
            let ops = try await daemon.headers(.ops, "ops")
            let wrong = try await client.execute(uri: "/v1/submissions/\(id)", method: .patch, headers: ops)
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.headers[.allow] == "DELETE, GET, HEAD")
            #expect(wrong.headers[.contentType] == "application/problem+json")
            #expect(wrong.json?["code"] as? String == "method_not_allowed")
            let put = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .put, headers: ops)
            #expect(put.status == .methodNotAllowed && put.headers[.allow] == "POST")
            let unknown = try await client.execute(uri: "/v1/nothing/here", method: .get, headers: ops)
            #expect(unknown.status == .notFound && unknown.json?["code"] as? String == "not_found")

            // A reply of C01's, then notes far over the 64 KiB a JSON body may have.
            let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            let feedbackId = try #require(reply.json?["id"] as? String)
            let notes = "{\"notes\": \"" + String(repeating: "a", count: 70_000) + "\"}"
            let patch = try await client.execute(uri: "/v1/feedback/\(feedbackId)", method: .patch,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "application/json"]),
                                                 body: ByteBuffer(string: notes))
            #expect(patch.status == .contentTooLarge)
            #expect(patch.headers[.contentType] == "application/problem+json")
            #expect(patch.json?["code"] as? String == "payload_too_large")
            #expect(patch.json?["max_bytes"] as? Int == 64 * 1_024)

            // A route whose own limit is smaller says its own: 16 KiB for preferences.
            let preferences = "{\"time_zone\": \"" + String(repeating: "a", count: 20_000) + "\"}"
            let small = try await client.execute(uri: "/v1/students/S1001/preferences", method: .put,
                                                 headers: try await daemon.headers(.student, "S1001", [.contentType: "application/json"]),
                                                 body: ByteBuffer(string: preferences))
            #expect(small.status == .contentTooLarge && small.json?["code"] as? String == "payload_too_large")
            #expect(small.json?["max_bytes"] as? Int == 16 * 1_024, "\(String(describing: small.json))")
            #expect(small.json?["detail"] as? String == "The request body is larger than 16 KiB.")
        }
    }

    @Test("Existence is not revealed: another coach's reply to a real submission is answered as for a made-up id")
    func uniformNotFound() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let id = try await submit(daemon, client: client)
            let c02 = try await daemon.headers(.coach, "C02", [.contentType: "audio/ogg"])
            let real = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post, headers: c02,
                                                body: try TestDaemon.fixture("speech.opus"))
            let madeUp = try await client.execute(uri: "/v1/submissions/sub_made_up/feedback", method: .post, headers: c02,
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(real.status == .notFound && madeUp.status == .notFound)
            #expect(real.json?["code"] as? String == madeUp.json?["code"] as? String)
            #expect(real.json?["detail"] as? String == madeUp.json?["detail"] as? String)
            // The same for a student's data: another student's feed is no one's.
            let other = try await client.execute(uri: "/v1/students/S1001/events", method: .get, headers: try await daemon.headers(.student, "S1002"))
            let nobody = try await client.execute(uri: "/v1/students/S9999/events", method: .get, headers: try await daemon.headers(.student, "S9999"))
            #expect(other.status == .notFound && nobody.status == .notFound)
            #expect(other.json?["code"] as? String == "unknown_student" && nobody.json?["code"] as? String == "unknown_student")
        }
    }

    @Test("Unknown students and coaches are 404 with their documented code on every route")
    func unknownIds() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let ops = try await daemon.headers(.ops, "ops")
            for uri in ["/v1/students/S9999/timeline", "/v1/students/S9999/events"] {
                let response = try await client.execute(uri: uri, method: .get, headers: ops)
                #expect(response.status == .notFound, "\(uri)")
                #expect(response.json?["code"] as? String == "unknown_student", "\(uri)")
            }
            let queue = try await client.execute(uri: "/v1/coaches/C99/queue", method: .get, headers: ops)
            #expect(queue.status == .notFound && queue.json?["code"] as? String == "unknown_coach")
            let own = try await client.execute(uri: "/v1/coaches/C99/queue", method: .get, headers: try await daemon.headers(.coach, "C99"))
            #expect(own.status == .notFound && own.json?["code"] as? String == "unknown_coach")
            let upload = try await client.execute(uri: "/v1/students/S9999/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S9999", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(upload.status == .notFound && upload.json?["code"] as? String == "unknown_student")
        }
    }

    @Test("Authorization, Idempotency-Key and cursors accept exactly what their schemas say")
    func syntax() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let token = try await daemon.token(.student, "S1001")
            let spaces = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: [.authorization: "Bearer   \(token)"])
            #expect(spaces.status == .ok)
            let tab = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: [.authorization: "Bearer\t\(token)"])
            #expect(tab.status == .unauthorized)

            var headers = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
            headers[.idempotencyKey] = "week 12 take 1"
            let spaced = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post, headers: headers,
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(spaced.status == .created)
            headers[.idempotencyKey] = String(repeating: "k", count: 129)
            let long = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post, headers: headers,
                                                body: try TestDaemon.fixture("speech.opus"))
            #expect(long.status == .badRequest && long.json?["code"] as? String == "invalid_idempotency_key")

            let own = try await daemon.headers(.student, "S1001")
            let longest = try await client.execute(uri: "/v1/students/S1001/events?after=" + String(repeating: "0", count: 17) + "1", method: .get, headers: own)
            #expect(longest.status == .ok)
            for cursor in [String(repeating: "0", count: 64) + "1", String(repeating: "1", count: 19), "abc", "-1"] {
                let response = try await client.execute(uri: "/v1/students/S1001/events?after=\(cursor)", method: .get, headers: own)
                #expect(response.status == .badRequest && response.json?["code"] as? String == "invalid_cursor", "\(cursor)")
            }
        }
    }

    @Test("""
        Every answer is logged once with status, route and principal (as its pseudonym), a 401 as a refusal with its reason \
        and client, and never the token
        """)
    func accessLog() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let recorder = LogRecorder()
        var logger = recorder.logger
        logger.logLevel = .info
        let application = TilawaServer.makeApplication(api: daemon.api, logger: logger)
        let token = try await daemon.token(.coach, "C01")
        try await application.live { client in
            _ = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: [.authorization: "Bearer \(token)"])
            _ = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: [.authorization: "Bearer \(token)x"])
            _ = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get)
            _ = try await client.execute(uri: "/v1/nothing", method: .get)
            _ = try await client.execute(uri: "/v1/coaches/C01/queue", method: .delete, headers: [.authorization: "Bearer \(token)"])
        }
        let requests = recorder.all.filter { $0.message == "request" }.map(\.metadata)
        let refused = recorder.all.filter { $0.message == "request refused: not signed in" }
        #expect(requests.count == 3 && refused.count == 2, "\(requests)\n\(refused)")
        let coach = daemon.runtime.pseudonyms.coach("C01")
        #expect(requests.contains { $0["status"] == "200" && $0["principal"] == "coach:\(coach)" && $0["route"] == "/v1/coaches/{id}/queue"
            && $0["path"] == "/v1/coaches/\(coach)/queue" })
        #expect(refused.allSatisfy { $0.level == .notice && $0.metadata["status"] == "401" && $0.metadata["client"] == "127.0.0.1" })
        #expect(Set(refused.compactMap { $0.metadata["reason"] }) == ["invalid_token", "missing_token"])
        #expect(requests.contains { $0["status"] == "404" && $0["path"] == "/v1/nothing" })
        #expect(requests.contains { $0["status"] == "405" })
        #expect(recorder.all.allSatisfy { entry in !entry.message.contains(token) && !entry.metadata.values.contains { $0.contains(token) } })
    }
}
