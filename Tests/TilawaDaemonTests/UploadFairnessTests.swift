import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A raw upload whose body trickles in: its head, then `bytes` bytes every 100 ms until
/// `stop()`, after which nothing more is sent (the connection stays open).
private final class TricklingUpload: Sendable {
    let socket: RawHTTPConnection
    private let sender: Task<Void, Never>

    init(port: Int, head: String, bytes: Int) throws {
        let socket = try RawHTTPConnection(port: port)
        try socket.send(head)
        self.socket = socket
        sender = Task {
            while !Task.isCancelled {
                do { try socket.send(Data(repeating: 0x52, count: bytes)) } catch { return }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    func stop() { sender.cancel() }

    func close() {
        sender.cancel()
        socket.close()
    }
}

private func uploadHead(student: String, slot: String, token: String, length: Int = 10_000_000, expect: Bool = false,
                        extra: String = "") -> String {
    "POST /v1/students/\(student)/weeks/\(slot)/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
        + "Content-Type: audio/wav\r\nContent-Length: \(length)\r\n\(expect ? "Expect: 100-continue\r\n" : "")\(extra)\r\n"
}

@Suite("Fair shares of the upload slots, and the slowest body the server waits for (live)")
struct UploadFairnessTests {
    @Test("one student's slow bodies hold only their share: the next is 429 before its body, another student's upload is taken meanwhile, and each slow body is cut with 408 once it falls below the minimum rate")
    func slowBodyAttack() async throws {
        let daemon = try await TestDaemon {
            $0.http.maxConcurrentUploads = 4
            $0.http.maxUploadsPerPrincipal = 2
            $0.http.coachUploadSlots = 1
            $0.http.minUploadBytesPerSecond = 500
            $0.http.minUploadRateWindow = 2
        }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let attacker = try await daemon.token(.student, "S1006")
            // Two bodies kept just alive (5 KB/s, ten times the minimum), as an attacker would.
            let held = try (0..<2).map { _ in
                try TricklingUpload(port: port, head: uploadHead(student: "S1006", slot: "assessment", token: attacker), bytes: 500)
            }
            defer { held.forEach { $0.close() } }
            #expect(await daemon.eventually { daemon.api.metrics.render().contains("tilawa_uploads_in_flight 2") })

            // The attacker's third upload: refused after the token, before the body (no 100 Continue).
            let third = try RawHTTPConnection(port: port)
            defer { third.close() }
            try third.send(uploadHead(student: "S1006", slot: "assessment", token: attacker, expect: true))
            let refused = await third.read(until: "too_many_uploads_for_you")
            #expect(refused.hasPrefix("HTTP/1.1 429"), "got: \(refused.prefix(80))")
            #expect(refused.lowercased().contains("retry-after: 10") && refused.lowercased().contains("connection: close"))
            #expect(refused.contains("too_many_uploads_for_you"))

            // Another student is served while the attacker holds its share.
            let honest = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(honest.status == .created)

            // Once the bodies stop, each is cut at the end of a window: 408, the slot freed, nothing kept.
            held.forEach { $0.stop() }
            for upload in held {
                let cut = await upload.socket.read(until: "upload_too_slow")
                #expect(cut.hasPrefix("HTTP/1.1 408"), "got: \(cut.prefix(80))")
                #expect(cut.lowercased().contains("connection: close"))
            }
            #expect(await daemon.eventually { daemon.api.metrics.render().contains("tilawa_uploads_in_flight 0") })
            #expect(await daemon.eventually { daemon.stagingFiles().isEmpty && daemon.openStagingFiles().isEmpty })
            #expect(await daemon.eventually { daemon.uploadsCounted("error", "upload_too_slow") == 2 })
            let attackerRows = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1006'")
            }
            #expect(attackerRows == 0)
        }
    }

    @Test("coaches keep their reserved share: with students' uploads filling the rest of the pool, another student gets 503 and a coach's reply is taken")
    func coachShare() async throws {
        let daemon = try await TestDaemon {
            $0.http.maxConcurrentUploads = 3
            $0.http.coachUploadSlots = 1
            $0.http.minUploadBytesPerSecond = 0
        }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let upload = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            let id = try #require(upload.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })

            let token = try await daemon.token(.student, "S1006")
            let held = try [RawHTTPConnection.partialUpload(port: port, token: token), RawHTTPConnection.partialUpload(port: port, token: token)]
            defer { held.forEach { $0.close() } }
            #expect(await daemon.eventually { daemon.api.metrics.render().contains("tilawa_uploads_in_flight 2") })

            let student = try RawHTTPConnection(port: port)
            defer { student.close() }
            try student.send(uploadHead(student: "S1002", slot: "12", token: try await daemon.token(.student, "S1002"), expect: true))
            let refused = await student.read(until: "\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 503"), "got: \(refused.prefix(80))")

            let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                 headers: try await daemon.headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(reply.status == .created)
        }
    }

    @Test("a resumable append cut for its pace keeps what arrived: 408 with Upload-Offset, and the offset says so")
    func slowAppendKeepsItsBytes() async throws {
        let daemon = try await TestDaemon {
            $0.http.minUploadBytesPerSecond = 500
            $0.http.minUploadRateWindow = 2
        }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let tus: HTTPFields = [.testTusResumable: "1.0.0", .testUploadLength: "1000000"]
            let created = try await client.execute(uri: "/v1/students/S1001/weeks/12/uploads", method: .post,
                                                   headers: try await daemon.headers(.student, "S1001", tus), body: ByteBuffer())
            let location = try #require(created.headers[.location])
            let token = try await daemon.token(.student, "S1001")
            let append = try TricklingUpload(port: port, head: "PATCH \(location) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                + "Tus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: 1000000\r\n\r\n",
                bytes: 1000)
            defer { append.close() }
            #expect(await daemon.eventually { daemon.api.metrics.render().contains("tilawa_uploads_in_flight 1") })
            try await Task.sleep(for: .milliseconds(500))
            append.stop()
            let cut = await append.socket.read(until: "upload_too_slow")
            #expect(cut.hasPrefix("HTTP/1.1 408"), "got: \(cut.prefix(80))")
            let kept = try #require(cut.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-offset:") }
                .flatMap { Int($0.dropFirst("upload-offset:".count).trimmingCharacters(in: .whitespaces)) })
            #expect(kept > 0)
            let offset = try await client.execute(uri: location, method: .head,
                                                  headers: try await daemon.headers(.student, "S1001", [.testTusResumable: "1.0.0"]))
            #expect(offset.headers[.testUploadOffset] == "\(kept)")
        }
    }
}

@Suite("Before the body: the key, the rule, the slot (live)")
struct UploadCheckOrderTests {
    @Test("with no attempt left a new upload is 429 before its body (no 100 Continue), bad audio included; a retry of the upload that used the last attempt still gets its 201")
    func attemptsBeforeBody() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            var ids: [String: String] = [:]
            for week in [12, 11] {
                var headers = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
                headers[.idempotencyKey] = "week-\(week)"
                let answer = try await client.judged(daemon, uri: "/v1/students/S1001/weeks/\(week)/submissions", headers: headers,
                                                     body: try TestDaemon.fixture("speech.opus"))
                #expect(answer.status == .created)
                ids["\(week)"] = answer.json?["id"] as? String
            }
            let third = try RawHTTPConnection(port: port)
            defer { third.close() }
            try third.send(uploadHead(student: "S1001", slot: "10", token: try await daemon.token(.student, "S1001"), expect: true))
            let refused = await third.read(until: "attempt_limit")
            #expect(refused.hasPrefix("HTTP/1.1 429"), "got: \(refused.prefix(80))")
            #expect(refused.lowercased().contains("retry-after:"))

            // Bad audio with no attempt left hears the attempt limit, not the audio's reason.
            let silent = try await client.judged(daemon, uri: "/v1/students/S1001/weeks/10/submissions",
                                                 headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/wav"]),
                                                 body: try TestDaemon.fixture("digital_silence.wav"))
            #expect(silent.status == .tooManyRequests && silent.json?["code"] as? String == "attempt_limit")

            // The phone lost the answer of the upload that used the last attempt: its retry gets it.
            var retry = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
            retry[.idempotencyKey] = "week-11"
            let replay = try await client.judged(daemon, uri: "/v1/students/S1001/weeks/11/submissions", headers: retry,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(replay.status == .created && replay.headers[.idempotentReplayed] == "true")
            #expect(replay.json?["id"] as? String == ids["11"])
            // The same key for another slot is refused at once, before the body.
            let other = try RawHTTPConnection(port: port)
            defer { other.close() }
            try other.send(uploadHead(student: "S1001", slot: "9", token: try await daemon.token(.student, "S1001"), expect: true,
                                      extra: "Idempotency-Key: week-11\r\n"))
            let reused = await other.read(until: "idempotency_key_reused")
            #expect(reused.hasPrefix("HTTP/1.1 409"), "got: \(reused.prefix(80))")
        }
    }
}

@Suite("One Idempotency-Key space per student across protocols; replays tell the truth (live)")
struct CrossProtocolIdempotencyTests {
    /// A whole upload as the IETF draft (version 6) creates it, with `key`: the final answer's
    /// head (after the 104) and the upload's path from the 104.
    static func draftUpload(port: Int, token: String, slot: String, key: String, body: Data,
                            extra: String = "") async throws -> (head: String, upload: String) {
        let socket = try RawHTTPConnection(port: port)
        defer { socket.close() }
        try socket.send("POST /v1/students/S1001/weeks/\(slot)/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: audio/ogg\r\nUpload-Draft-Interop-Version: 6\r\nUpload-Complete: ?1\r\nIdempotency-Key: \(key)\r\n\(extra)"
            + "Content-Length: \(body.count)\r\n\r\n")
        try socket.send(body)
        var interim = await socket.read(until: "\r\n\r\n")
        var upload = ""
        while interim.hasPrefix("HTTP/1.1 1") {
            if let location = Self.header("location", in: interim) { upload = location }
            interim = await socket.read(until: "\r\n\r\n")
        }
        return (interim, upload)
    }

    static func header(_ name: String, in head: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    func submissions(_ daemon: TestDaemon) async throws -> Int {
        try await daemon.runtime.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1001'") ?? -1
        }
    }

    @Test("a one-shot upload and its retry as a draft upload (and the other way round) are one request: one submission, one attempt; other content under the key is 409")
    func oneKeySpace() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let opus = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
        let other = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.ogg"))
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1001")
            func oneShot(_ slot: String, key: String, _ body: Data) async throws -> LiveAnswer {
                var headers = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
                headers[.idempotencyKey] = key
                return try await client.judged(daemon, uri: "/v1/students/S1001/weeks/\(slot)/submissions", headers: headers,
                                               body: ByteBuffer(bytes: body))
            }

            // One-shot first; its retry comes as a draft upload (URLSession adds the draft's headers itself).
            let first = try await oneShot("12", key: "k-1", opus)
            #expect(first.status == .created)
            let firstId = try #require(first.json?["id"] as? String)
            let retried = try await Self.draftUpload(port: port, token: token, slot: "12", key: "k-1", body: opus)
            #expect(retried.head.hasPrefix("HTTP/1.1 201"), "got: \(retried.head.prefix(80))")
            #expect(Self.header("location", in: retried.head) == "/v1/submissions/\(firstId)")
            #expect(try await submissions(daemon) == 1)

            // Draft first; its retry comes one-shot.
            let drafted = try await Self.draftUpload(port: port, token: token, slot: "11", key: "k-2", body: opus)
            #expect(drafted.head.hasPrefix("HTTP/1.1 201"), "got: \(drafted.head.prefix(80))")
            let draftedId = try #require(Self.header("location", in: drafted.head)?.split(separator: "/").last.map(String.init))
            let again = try await oneShot("11", key: "k-2", opus)
            #expect(again.status == .created && again.headers[.idempotentReplayed] == "true")
            #expect(again.json?["id"] as? String == draftedId)
            #expect(((again.json?["attempts"] as? [String: Any])?["used"] as? Int) == 2)
            #expect(try await submissions(daemon) == 2)

            // Another recording under a used key: 409 on either protocol, nothing charged.
            let reusedOneShot = try await oneShot("11", key: "k-2", other)
            #expect(reusedOneShot.status == .conflict && reusedOneShot.json?["code"] as? String == "idempotency_key_reused")
            let reusedDraft = try await Self.draftUpload(port: port, token: token, slot: "12", key: "k-1", body: other)
            #expect(reusedDraft.head.hasPrefix("HTTP/1.1 409"), "got: \(reusedDraft.head.prefix(80))")
            #expect(try await submissions(daemon) == 2)
        }
    }

    @Test("after a withdraw every replay is 410: the draft's key, the upload's URL (draft and tus), the one-shot key")
    func replaysAfterWithdraw() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let opus = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1001")
            let student = try await daemon.headers(.student, "S1001")

            let drafted = try await Self.draftUpload(port: port, token: token, slot: "12", key: "w-1", body: opus)
            let draftedId = try #require(Self.header("location", in: drafted.head)?.split(separator: "/").last.map(String.init))
            #expect(drafted.upload.hasPrefix("/v1/uploads/upl_"))
            #expect(try await client.execute(uri: "/v1/submissions/\(draftedId)", method: .delete, headers: student).status == .ok)
            let replay = try await Self.draftUpload(port: port, token: token, slot: "12", key: "w-1", body: opus)
            #expect(replay.head.hasPrefix("HTTP/1.1 410"), "got: \(replay.head.prefix(80))")
            let outcome = try await client.execute(uri: drafted.upload, method: .get, headers: student)
            #expect(outcome.status == .gone && outcome.json?["code"] as? String == "submission_withdrawn")

            // tus: creation with the whole body, then withdraw; the upload's URL says so.
            let tus: HTTPFields = [.testTusResumable: "1.0.0", .testUploadLength: "\(opus.count)",
                                   .contentType: "application/offset+octet-stream",
                                   .testUploadMetadata: "filetype \(Data("audio/ogg".utf8).base64EncodedString())"]
            let made = try await client.execute(uri: "/v1/students/S1001/weeks/11/uploads", method: .post,
                                                headers: try await daemon.headers(.student, "S1001", tus), body: ByteBuffer(bytes: opus))
            let location = try #require(made.headers[.location])
            let accepted = try await client.execute(uri: location, method: .get, headers: student)
            #expect(accepted.status == .ok)
            let tusId = try #require(accepted.json?["id"] as? String)
            #expect(try await client.execute(uri: "/v1/submissions/\(tusId)", method: .delete, headers: student).status == .ok)
            let gone = try await client.execute(uri: location, method: .get, headers: student)
            #expect(gone.status == .gone && gone.json?["code"] as? String == "submission_withdrawn")
        }
    }

    @Test("a replay answers from the recording's present: the state it is in now, not the body stored at acceptance")
    func replayIsCurrent() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            var headers = try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"])
            headers[.idempotencyKey] = "now-1"
            let first = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post, headers: headers,
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(first.json?["state"] as? String == "processing")
            let id = try #require(first.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            let replay = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post, headers: headers,
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(replay.status == .created && replay.headers[.idempotentReplayed] == "true")
            #expect(replay.json?["state"] as? String == "awaiting_feedback")
        }
    }

    @Test("a draft creation refused before it kept a byte leaves no open upload behind (three of them used to lock the student's resumable uploads for a day)")
    func refusedCreationCancels() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let opus = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1001")
            for attempt in 0..<4 {
                // Upload-Length says one size, the body another: 409 after the 104.
                let refused = try await Self.draftUpload(port: port, token: token, slot: "12", key: "len-\(attempt)", body: opus,
                                                         extra: "Upload-Length: \(opus.count + 10)\r\n")
                #expect(refused.head.hasPrefix("HTTP/1.1 409"), "got: \(refused.head.prefix(80))")
            }
            let open = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resumableUpload WHERE studentId = 'S1001'")
            }
            #expect(open == 0)
            let fine = try await Self.draftUpload(port: port, token: token, slot: "12", key: "len-ok", body: opus)
            #expect(fine.head.hasPrefix("HTTP/1.1 201"), "got: \(fine.head.prefix(80))")
        }
    }
}

@Suite("HEAD on GET routes and If-Range (live)")
struct HeadAndConditionalTests {
    @Test("HEAD answers as GET without the body: health, metrics, timeline, audio in each format with Range; HEAD on an upload's URL stays the offset probe")
    func head() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (submission, _) = try await daemon.answeredRecording(client)
            let student = try await daemon.headers(.student, "S1001")
            for uri in ["/healthz", "/readyz", "/openapi.yaml", "/v1/students/S1001/timeline", "/v1/submissions/\(submission)/audio",
                        "/v1/submissions/\(submission)/audio?format=mp4", "/v1/submissions/\(submission)/audio?format=caf",
                        "/v1/submissions/\(submission)/waveform", "/v1/students/S9999/timeline"] {
                let head = try await client.execute(uri: uri, method: .head, headers: student)
                let get = try await client.execute(uri: uri, method: .get, headers: student)
                #expect(head.status == get.status, "\(uri)")
                #expect(head.body.readableBytes == 0, "\(uri)")
                #expect(head.headers[.contentLength] == get.headers[.contentLength] && get.headers[.contentLength] != nil, "\(uri)")
                #expect(head.headers[.eTag] == get.headers[.eTag] && head.headers[.contentType] == get.headers[.contentType], "\(uri)")
            }
            var ranged = student
            ranged[.range] = "bytes=10-99"
            let partial = try await client.execute(uri: "/v1/submissions/\(submission)/audio?format=mp4", method: .head, headers: ranged)
            #expect(partial.status == .partialContent && partial.headers[.contentLength] == "90" && partial.body.readableBytes == 0)
            let metrics = try await client.execute(uri: "/metrics", method: .head)
            #expect(metrics.status == .ok && metrics.body.readableBytes == 0)

            let created = try await client.execute(uri: "/v1/students/S1001/weeks/11/uploads", method: .post,
                                                   headers: try await daemon.headers(.student, "S1001", [.testTusResumable: "1.0.0", .testUploadLength: "100"]),
                                                   body: ByteBuffer())
            let location = try #require(created.headers[.location])
            let probe = try await client.execute(uri: location, method: .head,
                                                 headers: try await daemon.headers(.student, "S1001", [.testTusResumable: "1.0.0"]))
            #expect(probe.status == .ok && probe.headers[.testUploadOffset] == "0" && probe.headers[.testUploadLength] == "100")
        }
    }

    @Test("If-Range: the representation's own ETag gives 206; another format's ETag, a weak one or a date gives the whole file")
    func ifRange() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (submission, _) = try await daemon.answeredRecording(client)
            let student = try await daemon.headers(.student, "S1001")
            let ogg = try await client.execute(uri: "/v1/submissions/\(submission)/audio", method: .get, headers: student)
            let mp4 = try await client.execute(uri: "/v1/submissions/\(submission)/audio?format=mp4", method: .get, headers: student)
            let oggTag = try #require(ogg.headers[.eTag])
            let mp4Tag = try #require(mp4.headers[.eTag])
            #expect(oggTag != mp4Tag)
            func ranged(_ ifRange: String) async throws -> LiveAnswer {
                var headers = student
                headers[.range] = "bytes=100-199"
                headers[.ifRange] = ifRange
                return try await client.execute(uri: "/v1/submissions/\(submission)/audio", method: .get, headers: headers)
            }
            let same = try await ranged(oggTag)
            #expect(same.status == .partialContent && same.body.readableBytes == 100)
            for validator in [mp4Tag, "W/" + oggTag, "Wed, 25 Nov 2026 10:00:00 GMT"] {
                let whole = try await ranged(validator)
                #expect(whole.status == .ok && whole.body.readableBytes == ogg.body.readableBytes, "If-Range: \(validator)")
                #expect(whole.headers[.contentRange] == nil)
            }
        }
    }
}
