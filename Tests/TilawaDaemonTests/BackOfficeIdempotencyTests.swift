import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// `Idempotency-Key` on the back office's writes: a retried request is applied once. The
/// daemon lives on Sunday 22 November 2026 (week 12 open); S1002 is C02's student.
@Suite("Back-office retries: one key, one action, one notice, one audit row")
struct BackOfficeIdempotencyTests {
    private func send(_ client: LiveClient, _ daemon: TestDaemon, _ uri: String, _ body: String, key: String?,
                      as subject: String = "amina") async throws -> LiveAnswer {
        var extra: HTTPFields = [.contentType: "application/json"]
        if let key { extra[.idempotencyKey] = key }
        return try await client.execute(uri: uri, method: .post, headers: try await daemon.headers(.ops, subject, extra),
                                        body: ByteBuffer(string: body))
    }

    private func count(_ daemon: TestDaemon, _ sql: String) async throws -> Int {
        try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test("a retried grant of 3 grants 3, once: the same answer replayed, one notice, one audit row; another body under the key is 422")
    func retriedGrant() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let uri = "/v1/students/S1002/attempt-grants"
            let body = #"{"count": 3, "expires_at": "2026-11-29T00:00:00Z", "reason": "Lost a week to a family emergency"}"#
            let first = try await send(client, daemon, uri, body, key: "grant-7f3a")
            #expect(first.status == .created, "\(String(buffer: first.body))")
            #expect(first.headers[.idempotentReplayed] == nil)
            let retry = try await send(client, daemon, uri, body, key: "grant-7f3a")
            #expect(retry.status == .created && retry.headers[.idempotentReplayed] == "true")
            #expect(String(buffer: retry.body) == String(buffer: first.body), "the first answer, unchanged")

            let timeline = try await client.execute(uri: "/v1/students/S1002/timeline", method: .get,
                                                    headers: try await daemon.headers(.ops, "amina"))
            #expect((timeline.json?["attempts"] as? [String: Any])?["granted"] as? Int == 3)
            #expect(try await count(daemon, "SELECT COUNT(*) FROM audit WHERE studentId = 'S1002' AND action = 'attempts_granted'") == 1)
            #expect(try await count(daemon, "SELECT COUNT(*) FROM event WHERE studentId = 'S1002' AND type = 'attempts_granted'") == 1)

            let other = try await send(client, daemon, uri, #"{"count": 1, "expires_at": "2026-11-29T00:00:00Z", "reason": "x"}"#,
                                       key: "grant-7f3a")
            #expect(other.status == .unprocessableContent && other.json?["code"] as? String == "idempotency_key_reused",
                    "\(String(buffer: other.body))")
            // The same key on another route is another request too.
            let extended = try await send(client, daemon, "/v1/students/S1002/extensions",
                                           #"{"week": 11, "due_at": "2026-11-24T23:59:00-05:00", "reason": "x"}"#, key: "grant-7f3a")
            #expect(extended.json?["code"] as? String == "idempotency_key_reused")
            // Keys are each operator's: another operator's same key is a request of its own.
            let another = try await send(client, daemon, uri, body, key: "grant-7f3a", as: "bilal")
            #expect(another.status == .created && another.headers[.idempotentReplayed] == nil)
            #expect(try await count(daemon, "SELECT COUNT(*) FROM audit WHERE studentId = 'S1002' AND action = 'attempts_granted'") == 2)
            // Without a key every request is its own, as before.
            #expect(try await send(client, daemon, uri, body, key: nil).status == .created)
            #expect(try await count(daemon, "SELECT COUNT(*) FROM audit WHERE studentId = 'S1002' AND action = 'attempts_granted'") == 3)
            let bad = try await send(client, daemon, uri, body, key: "")
            #expect(bad.status == .badRequest && bad.json?["code"] as? String == "invalid_idempotency_key")
        }
    }

    @Test("a refusal is not remembered: its retry is decided anew; a retried erasure answers its first answer and is audited once")
    func refusalsAndErasure() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let erase = "/v1/students/S1002/erasure"
            let refused = try await send(client, daemon, erase, #"{"reason": "Asked by the family"}"#, key: "erase-1")
            #expect(refused.status == .conflict && refused.json?["code"] as? String == "open_enrolment", "\(String(buffer: refused.body))")
            #expect(try await count(daemon, "SELECT COUNT(*) FROM idempotencyKey") == 0, "a refusal holds no key")

            let body = #"{"reason": "Asked by the family", "force": true}"#
            let erased = try await send(client, daemon, erase, body, key: "erase-2")
            #expect(erased.status == .ok && erased.json?["student_id"] as? String == "S1002", "\(String(buffer: erased.body))")
            let retry = try await send(client, daemon, erase, body, key: "erase-2")
            #expect(retry.status == .ok && retry.headers[.idempotentReplayed] == "true")
            #expect(String(buffer: retry.body) == String(buffer: erased.body))
            #expect(try await count(daemon, "SELECT COUNT(*) FROM audit WHERE studentId = 'S1002' AND action = 'student_erased'") == 1)
            // Without the key a second erasure runs again (and finds nothing more to remove): audited twice.
            let unkeyed = try await send(client, daemon, erase, body, key: nil)
            #expect(unkeyed.status == .ok && unkeyed.json?["files_removed"] as? Int == 0, "\(String(buffer: unkeyed.body))")
            #expect(try await count(daemon, "SELECT COUNT(*) FROM audit WHERE studentId = 'S1002' AND action = 'student_erased'") == 2)
        }
    }

    @Test("a retried announcement reaches each student once, and its replay keeps the Location")
    func retriedAnnouncement() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        try await daemon.application().live { client in
            let body = #"{"title": "No class on Friday", "body": "The centre is closed.", "audience": {"all": true}}"#
            let first = try await send(client, daemon, "/v1/announcements", body, key: "ann-1")
            #expect(first.status == .accepted, "\(String(buffer: first.body))")
            let location = try #require(first.headers[.location])
            let retry = try await send(client, daemon, "/v1/announcements", body, key: "ann-1")
            #expect(retry.status == .accepted && retry.headers[.idempotentReplayed] == "true")
            #expect(retry.headers[.location] == location)
            #expect(try await count(daemon, "SELECT COUNT(*) FROM event WHERE studentId = 'S1001' AND type = 'announcement'") == 1)
        }
    }
}
