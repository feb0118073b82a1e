import Foundation
import HTTPTypes
import Hummingbird
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// The red team's "erase, then upload" through the running daemon: an erased student's
/// credentials, recordings and back-office actions after the erasure.
@Suite("Erasure is final through the daemon: tokens, queue, replies, back office")
struct ErasureSeamRouteTests {
    @Test("erase then upload: every token of theirs is 401 unknown_subject, nothing is stored, the recording leaves the queue, a reply is 404, a grant 409")
    func eraseThenUpload() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let before = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
            let uri = "/v1/students/S1001/weeks/12/submissions"
            let upload = try await client.execute(uri: uri, method: .post, headers: before, body: try TestDaemon.fixture("speech.opus"))
            let id = try #require(upload.json?["id"] as? String, "\(upload.status) \(String(buffer: upload.body))")
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            let coach = try await daemon.headers(.coach, "C01")
            func queued() async throws -> [String] {
                let queue = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: coach)
                return (queue.json?["items"] as? [[String: Any]] ?? []).compactMap { ($0["submission"] as? [String: Any])?["id"] as? String }
            }
            #expect(try await queued().contains(id))

            let ops = try await daemon.headers(.ops, "amina", [.contentType: "application/json"])
            let erased = try await client.execute(uri: "/v1/students/S1001/erasure", method: .post, headers: ops,
                                                  body: ByteBuffer(string: #"{"reason": "Asked by the student's parent", "force": true}"#))
            try #require(erased.status == .ok, "\(String(buffer: erased.body))")

            // The token from before, and one issued after: refused on every route, before anything is read.
            let after = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
            for headers in [before, after] {
                let again = try await client.execute(uri: uri, method: .post, headers: headers, body: try TestDaemon.fixture("speech.opus"))
                #expect(again.status == .unauthorized && again.json?["code"] as? String == "unknown_subject", "\(String(buffer: again.body))")
                let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: headers)
                #expect(timeline.status == .unauthorized && timeline.json?["code"] as? String == "unknown_subject")
            }
            let recordings = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1001'") ?? -1
            }
            #expect(recordings == 1, "nothing new is recorded")
            #expect(try await !queued().contains(id), "the erased student's recording left the queue")
            #expect(try await daemon.runtime.database.submission(id: id)?.state == .withdrawn)

            let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(reply.status == .notFound, "\(String(buffer: reply.body))")
            let audits = try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit") ?? -1 }
            let grant = try await client.execute(uri: "/v1/students/S1001/attempt-grants", method: .post, headers: ops,
                                                 body: ByteBuffer(string: #"{"count": 3, "expires_at": "2026-12-20T00:00:00Z", "reason": "x"}"#))
            #expect(grant.status == .conflict && grant.json?["code"] as? String == "student_erased", "\(String(buffer: grant.body))")
            #expect(try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit") ?? -1 } == audits)
        }
    }
}
