import AsyncHTTPClient
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

private let audio: HTTPFields = [.contentType: "application/octet-stream"]

@Suite("Uploads over HTTP (live server on loopback)")
struct UploadRouteTests {
    @Test("Every fixture kind: accepted ones 201 and encoded, bad ones their code with 415 or 422")
    func everyFixture() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: fixturesDirectory.appendingPathComponent("manifest.json"))) as? [String: Any]
        let entries = try #require(manifest?["fixtures"] as? [[String: Any]])
        let fixtures: [(file: String, accepted: Bool, reasons: [String])] = entries.map {
            ($0["file"] as? String ?? "", $0["verdict"] as? String == "accepted", $0["reasons"] as? [String] ?? [])
        }
        try await daemon.application().live { client in
            let port = client.port
            // The placement assessment uses no attempt, so every fixture can be sent by one student.
            let headers = try await daemon.headers(.student, "S1001", audio)
            for (file, isAccepted, reasons) in fixtures {
                let response = try await daemon.request(port: port, method: .post, "/v1/students/S1001/weeks/assessment/submissions",
                                                        headers: headers, body: Data(buffer: try TestDaemon.fixture(file)))
                if isAccepted {
                    #expect(response.status == .created, "\(file): \(String(buffer: response.body))")
                    #expect(response.json?["kind"] as? String == "assessment")
                } else {
                    let expected: HTTPResponse.Status = reasons.first == "unsupported_format" ? .unsupportedMediaType : .unprocessableContent
                    #expect(response.status == expected, "\(file)")
                    #expect(response.headers[.contentType] == "application/problem+json")
                    #expect(response.json?["code"] as? String == reasons.first, "\(file)")
                    #expect(response.json?["reasons"] as? [String] == reasons, "\(file)")
                }
            }
            let accepted = fixtures.filter(\.accepted).count
            #expect(await daemon.eventually {
                try daemon.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE audioPath IS NOT NULL")
                } == accepted
            })
            // Each assessment supersedes the previous unreviewed one: only the newest awaits review.
            #expect(await daemon.eventually {
                try daemon.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE state = 'awaiting_feedback'")
                } == 1
            })
        }
        #expect(daemon.stagingFiles().isEmpty)
    }

    @Test("A retry with the same Idempotency-Key and body replays the answer and uses no second attempt")
    func idempotentReplay() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let headers = try await daemon.headers(.student, "S1002", [.contentType: "audio/mpeg", .idempotencyKey: "retry-1"])
            let uri = "/v1/students/S1002/weeks/12/submissions"
            let first = try await client.judged(daemon, uri: uri, headers: headers, body: try TestDaemon.fixture("speech.mp3"))
            #expect(first.status == .created)
            let replay = try await client.judged(daemon, uri: uri, headers: headers, body: try TestDaemon.fixture("speech.mp3"))
            #expect(replay.status == .created)
            #expect(replay.headers[.idempotentReplayed] == "true")
            #expect(replay.json?["id"] as? String == first.json?["id"] as? String)
            let other = try await client.judged(daemon, uri: uri, headers: headers, body: try TestDaemon.fixture("speech.ogg"))
            #expect(other.status == .conflict)
            #expect(other.json?["code"] as? String == "idempotency_key_reused")
            let submissions = try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") }
            #expect(submissions == 1)
            let attempts = try await daemon.runtime.database.attemptStatus(studentId: "S1002", policy: daemon.runtime.policy, now: daemon.clock.now)
            #expect(attempts?.used == 1)
        }
    }

    /// On separate connections (the live test client has one, which would hand the server the
    /// ten requests one after another), with a deadline that only guards against a hang: on a
    /// loaded machine ten judged uploads may take long, and that is no failure of the rule.
    @Test("Ten concurrent uploads by one student: exactly two 201 and eight 429 with Retry-After and one next_attempt_at")
    func concurrentUploads() async throws {
        // All ten race the rule itself: no per-student share of the upload slots refuses some
        // of them first (that share has its own tests, UploadFairnessTests).
        let daemon = try await TestDaemon { $0.http.maxUploadsPerPrincipal = 10 }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1003")
            let body = try TestDaemon.fixture("speech.opus")
            let responses = try await withThrowingTaskGroup(of: (status: Int, retryAfter: Int?, body: Data).self) { group in
                for week in 3...12 {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/students/S1003/weeks/\(week)/submissions")
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "Bearer \(token)")
                        request.headers.add(name: "Content-Type", value: "application/octet-stream")
                        request.body = .bytes(body)
                        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
                        let data = try await response.body.collect(upTo: 1 << 20)
                        return (Int(response.status.code), response.headers.first(name: "Retry-After").flatMap(Int.init), Data(data.readableBytesView))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.filter { $0.status == 201 }.count == 2)
            let limited = responses.filter { $0.status == 429 }
            #expect(limited.count == 8)
            let openings = limited.compactMap { (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any])?["next_attempt_at"] as? String }
            #expect(openings.count == 8 && Set(openings).count == 1)
            #expect(limited.allSatisfy { ($0.retryAfter ?? 0) > 0 })
        }
    }

    @Test("Rules answer with their codes and data: week_locked with unlocks_at, eoc_not_eligible, unknown student")
    func ruleRefusals() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let headers = try await daemon.headers(.student, "S1004", audio)
            let locked = try await client.execute(uri: "/v1/students/S1004/weeks/13/submissions", method: .post, headers: headers,
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(locked.status == .conflict)
            #expect(locked.json?["code"] as? String == "week_locked")
            #expect(locked.json?["unlocks_at"] as? String == "2026-11-28T05:00:00Z")
            let eoc = try await client.execute(uri: "/v1/students/S1004/weeks/eoc/submissions", method: .post, headers: headers,
                                               body: try TestDaemon.fixture("speech.opus"))
            #expect(eoc.json?["code"] as? String == "eoc_not_eligible")
            let badSlot = try await client.execute(uri: "/v1/students/S1004/weeks/16/submissions", method: .post, headers: headers,
                                                   body: try TestDaemon.fixture("speech.opus"))
            #expect(badSlot.status == .badRequest)
            #expect(badSlot.json?["code"] as? String == "invalid_week")
        }
        #expect(daemon.stagingFiles().isEmpty)
    }

    @Test("A declared media type that is not audio is 415 not_audio, for recordings and replies alike")
    func notAudio() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let recording = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                     headers: try await daemon.headers(.student, "S1001", [.contentType: "image/png"]),
                                                     body: try TestDaemon.fixture("image.m4a"))
            #expect(recording.status == .unsupportedMediaType)
            #expect(recording.json?["code"] as? String == "not_audio")
            let reply = try await client.execute(uri: "/v1/submissions/sub_unknown/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "text/plain"]),
                                                 body: ByteBuffer(string: "hello"))
            #expect(reply.status == .unsupportedMediaType)
            #expect(reply.json?["code"] as? String == "not_audio")
        }
        #expect(daemon.stagingFiles().isEmpty)
    }

    @Test("A body over the limit is answered 413 and leaves no staging file, declared or chunked")
    func oversize() async throws {
        let daemon = try await TestDaemon { $0.http.maxUploadBytes = 256 * 1024 }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let headers = try await daemon.headers(.student, "S1005", audio)
            let big = ByteBuffer(repeating: 0x41, count: 1024 * 1024)
            let declared = try await client.execute(uri: "/v1/students/S1005/weeks/12/submissions", method: .post, headers: headers, body: big)
            #expect(declared.status == .contentTooLarge)
            #expect(declared.json?["code"] as? String == "payload_too_large")
        }
        #expect(daemon.stagingFiles().isEmpty)
        let rejections = try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") }
        #expect(rejections == 0)
    }

    @Test("Too little free disk: 507 storage_full before the body is read, nothing counted, not ready")
    func storageFull() async throws {
        // More free space required than any disk has: the daemon must refuse rather than fill it.
        let daemon = try await TestDaemon { $0.storage.minFreeBytes = Int(Int64.max / 2) }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let response = try await client.execute(uri: "/v1/students/S1007/weeks/12/submissions", method: .post,
                                                    headers: try await daemon.headers(.student, "S1007", audio),
                                                    body: try TestDaemon.fixture("speech.opus"))
            #expect(response.status.code == 507)
            #expect(response.json?["code"] as? String == "storage_full")
            #expect(response.headers[.retryAfter] != nil)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .serviceUnavailable)
        }
        #expect(daemon.stagingFiles().isEmpty)
        let attempts = try await daemon.runtime.database.attemptStatus(studentId: "S1007", policy: daemon.runtime.policy, now: daemon.clock.now)
        #expect(attempts?.used == 0)
    }

    @Test("A client that disconnects mid-upload leaves no staging file and no row, and its Idempotency-Key unused")
    func disconnect() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1006")
            let socket = try RawHTTPConnection.partialUpload(port: port, token: token, idempotencyKey: "cut-1")
            // Let the server start writing the body, then vanish.
            #expect(await daemon.eventually { !daemon.openStagingFiles().isEmpty })
            socket.close()
            #expect(await daemon.eventually { daemon.stagingFiles().isEmpty && daemon.openStagingFiles().isEmpty })
            #expect(await daemon.eventually { daemon.uploadsCounted("error", "upload_incomplete") == 1 })
            let rows = try await daemon.runtime.database.engine.read { db in
                (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? -1, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection") ?? -1)
            }
            #expect(rows.0 == 0 && rows.1 == 0)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: daemon.runtime.stateDirectory.artifacts.path)
            #expect(leftovers.isEmpty)

            // The cut upload took nothing: the same key with the whole recording is a first request.
            var headers = try await daemon.headers(.student, "S1006", audio)
            headers[.idempotencyKey] = "cut-1"
            let retry = try await daemon.request(port: port, method: .post, "/v1/students/S1006/weeks/12/submissions",
                                                 headers: headers, body: Data(buffer: try TestDaemon.fixture("speech_mono_s16_48k.wav")))
            #expect(retry.status == .created)
            #expect(retry.headers[.idempotentReplayed] == nil)
            #expect((retry.json?["attempts"] as? [String: Any])?["used"] as? Int == 1)
        }
    }
}

@Suite("Slow uploads (live server on loopback)")
struct SlowUploadTests {
    @Test("A body that stops arriving is cut at http.upload_timeout_seconds and leaves nothing behind")
    func stalledBody() async throws {
        // Short enough for a test, long enough for a loaded machine to open the staging file first.
        let daemon = try await TestDaemon(configure: { $0.http.uploadTimeout = 3 })
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1006")
            let socket = try RawHTTPConnection.partialUpload(port: port, token: token)
            #expect(await daemon.eventually { !daemon.openStagingFiles().isEmpty })
            // The phone has lost its network but not the connection: nothing more comes.
            #expect(await socket.closedByServer(), "the server kept a stalled upload open")
            socket.close()
            #expect(await daemon.eventually { daemon.stagingFiles().isEmpty && daemon.openStagingFiles().isEmpty })
            #expect(await daemon.eventually { daemon.uploadsCounted("error", "upload_incomplete") == 1 })
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
        let rows = try await daemon.runtime.database.engine.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? -1, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection") ?? -1)
        }
        #expect(rows.0 == 0 && rows.1 == 0)
    }
}
