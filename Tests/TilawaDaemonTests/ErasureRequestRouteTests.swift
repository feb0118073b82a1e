import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaCore
import TilawaTestSupport

/// Erasure asked by the student over HTTP (DESIGN §16, issue 46 item 4): `POST`, `GET`,
/// `DELETE /v1/students/{id}/erasure-request`, uploads refused while one is pending, and the
/// housekeeping step that carries a due one out — with what `tilawa status` says meanwhile.
@Suite("Erasure requests over HTTP: asked once, uploads refused, export still works, cancelled, carried out when due, status")
struct ErasureRequestRouteTests {
    static func ask(_ client: LiveClient, _ daemon: TestDaemon, _ student: String, as role: Role = .student, subject: String? = nil,
                    method: HTTPRequest.Method = .post) async throws -> LiveAnswer {
        try await client.execute(uri: "/v1/students/\(student)/erasure-request", method: method,
                                 headers: try await daemon.headers(role, subject ?? student))
    }

    @Test("""
        asked: 201 with due_at grace days on and a cancel link; a retry 200 with the same request, one event to operations \
        and one audit row; every upload 409 erasure_pending before its body; the export still works; cancelled: 200, \
        uploads accepted again, GET 404 no_erasure_request
        """)
    func askAndCancel() async throws {
        let daemon = try await TestDaemon(configure: { $0.privacy.erasureGraceDays = 14 })
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let asked = try await Self.ask(client, daemon, "S1001")
            #expect(asked.status == .created, "\(String(buffer: asked.body))")
            #expect(asked.json?["requested_at"] as? String == daemon.clock.now.formatted(.iso8601))
            #expect(asked.json?["due_at"] as? String == daemon.clock.now.addingTimeInterval(14 * 86_400).formatted(.iso8601))
            let cancel = try #require(asked.json?["cancel"] as? [String: Any])
            #expect(cancel["href"] as? String == "/v1/students/S1001/erasure-request" && cancel["method"] as? String == "DELETE")
            daemon.clock.advance(by: 30)
            let retry = try await Self.ask(client, daemon, "S1001")
            #expect(retry.status == .ok && retry.json?["requested_at"] as? String == asked.json?["requested_at"] as? String)
            let events = try await daemon.runtime.database.engine.read { db in
                try EventRecord.fetchAll(db, where: "type = 'erasure_requested'")
            }
            #expect(events.count == 1 && events.first?.recipient == "ops" && events.first?.studentId == "S1001")
            let audits = try await daemon.runtime.database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 20).entries
            #expect(audits.filter { $0.action == "erasure_requested" }.map(\.actor) == ["student:S1001"])

            let refused = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                   headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                   body: try TestDaemon.fixture("speech.opus"))
            #expect(refused.status == .conflict && refused.json?["code"] as? String == "erasure_pending", "\(String(buffer: refused.body))")
            #expect(refused.json?["detail"] as? String == "You asked on Sunday 22 November for your recordings to be erased; cancel that request to record again.")
            #expect(refused.json?["due_at"] as? String == asked.json?["due_at"] as? String)
            let tus = try await client.execute(uri: "/v1/students/S1001/weeks/12/uploads", method: .post,
                                               headers: try await daemon.headers(.student, "S1001", [.init("Tus-Resumable")!: "1.0.0",
                                                                                                    .init("Upload-Length")!: "40000"]),
                                               body: ByteBuffer())
            #expect(tus.json?["code"] as? String == "erasure_pending")
            let export = try await client.execute(uri: "/v1/students/S1001/export", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(export.status == .ok && export.headers[.contentType] == "application/zip", "the student's archive while the request stands")
            let shown = try await Self.ask(client, daemon, "S1001", as: .ops, subject: "amina", method: .get)
            #expect(shown.status == .ok && shown.json?["cancelled_at"] is NSNull)

            daemon.clock.advance(by: 60)
            let cancelled = try await Self.ask(client, daemon, "S1001", method: .delete)
            #expect(cancelled.status == .ok && cancelled.json?["cancelled_at"] as? String == daemon.clock.now.formatted(.iso8601))
            #expect(cancelled.json?["cancel"] == nil)
            #expect(try await daemon.runtime.database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 20).entries
                .contains { $0.action == "erasure_request_cancelled" && $0.actor == "student:S1001" })
            let gone = try await Self.ask(client, daemon, "S1001", method: .get)
            #expect(gone.status == .notFound && gone.json?["code"] as? String == "no_erasure_request")
            #expect(try await Self.ask(client, daemon, "S1001", method: .delete).json?["code"] as? String == "no_erasure_request")
            let accepted = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                    headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                    body: try TestDaemon.fixture("speech.opus"))
            #expect(accepted.status == .created, "\(String(buffer: accepted.body))")
        }
    }

    @Test("""
        a coach is 403, another student 404 unknown_student, an unknown or already erased student 404 unknown_student, \
        and ops may ask for a student
        """)
    func whoMay() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            for method in [HTTPRequest.Method.post, .get, .delete] {
                #expect(try await Self.ask(client, daemon, "S1002", as: .coach, subject: "C02", method: method).status == .forbidden, "\(method)")
                let other = try await Self.ask(client, daemon, "S1002", as: .student, subject: "S1001", method: method)
                #expect(other.status == .notFound && other.json?["code"] as? String == "unknown_student", "\(method)")
            }
            #expect(try await Self.ask(client, daemon, "S9999", as: .ops, subject: "amina").json?["code"] as? String == "unknown_student")
            guard case .success = try await daemon.runtime.database.erase(studentId: "S1011", force: true, by: "amina", reason: "asked",
                                                                        now: daemon.clock.now) else {
                Issue.record("S1011 not erased")
                return
            }
            let erased = try await Self.ask(client, daemon, "S1011", as: .ops, subject: "amina")
            #expect(erased.status == .notFound && erased.json?["code"] as? String == "unknown_student")
            let byOps = try await Self.ask(client, daemon, "S1002", as: .ops, subject: "amina")
            #expect(byOps.status == .created)
            #expect(try await daemon.runtime.database.audit(AuditFilter(studentId: "S1002"), after: nil, limit: 20).entries
                .contains { $0.action == "erasure_requested" && $0.actor == "amina" })
        }
    }

    @Test("""
        with no grace the request is due at once: status counts it (OK), /metrics has it, a day late it warns; the \
        housekeeping step erases the student once (files gone, audited as the erasure request, their token names no one), \
        a second turn finds nothing, and status is back to none pending
        """)
    func carriedOutWhenDue() async throws {
        let daemon = try await TestDaemon(configure: { $0.privacy.erasureGraceDays = 0 })
        defer { daemon.remove() }
        let reporter = StatusReporter(configuration: daemon.runtime.configuration)
        try await daemon.application().live { client in
            let uploaded = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                    headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                    body: try TestDaemon.fixture("speech.opus"))
            let id = try #require(uploaded.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            let token = try await daemon.headers(.student, "S1001")
            let asked = try await Self.ask(client, daemon, "S1001")
            #expect(asked.status == .created && asked.json?["due_at"] as? String == asked.json?["requested_at"] as? String)

            let pending = await reporter.report(now: daemon.clock.now, database: daemon.runtime.database, startedAt: daemon.clock.now)
            #expect(pending.erasureRequests == .init(pending: 1, earliestDueAt: daemon.clock.now, late: 0))
            #expect(pending.check("erasure_requests")?.state == .ok)
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .ok)
            #expect(metricValue("tilawa_erasure_requests_pending", in: daemon.api.metrics) == 1)
            let late = await reporter.report(now: daemon.clock.now.addingTimeInterval(2 * 86_400), database: daemon.runtime.database,
                                             startedAt: daemon.clock.now)
            #expect(late.check("erasure_requests")?.state == .warning && late.erasureRequests.late == 1)

            let files = try #require(try await daemon.runtime.database.submission(id: id)).originalPath
            let erased = try await ErasureRequestService.carryOutDueErasures(runtime: daemon.runtime, logger: daemon.logger)
            #expect(erased.map(\.studentId) == ["S1001"] && erased.first?.recordings == 1)
            #expect(try await ErasureRequestService.carryOutDueErasures(runtime: daemon.runtime, logger: daemon.logger).isEmpty, "once")
            #expect(try await daemon.runtime.database.isErased(studentId: "S1001"))
            if let files {
                #expect(!FileManager.default.fileExists(atPath: daemon.runtime.stateDirectory.artifacts.appendingPathComponent(files).path))
            }
            let audit = try await daemon.runtime.database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 20).entries
            #expect(audit.filter { $0.action == "student_erased" }.map(\.actor) == ["erasure request"])
            let refused = try await client.execute(uri: "/v1/students/S1001/erasure-request", method: .get, headers: token)
            #expect(refused.status == .unauthorized && refused.json?["code"] as? String == "unknown_subject")
            let after = await reporter.report(now: daemon.clock.now, database: daemon.runtime.database, startedAt: daemon.clock.now)
            #expect(after.erasureRequests.pending == 0 && after.check("erasure_requests")?.state == .ok)
        }
    }
}
