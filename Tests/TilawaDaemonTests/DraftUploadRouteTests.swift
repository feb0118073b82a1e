import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Resumable uploads for HTTP (the IETF draft), by raw requests for each interop version")
struct DraftUploadRouteTests {
    /// The completeness header as `version` says it.
    static func completeness(_ complete: Bool, version: Int) -> String {
        version >= 4 ? "Upload-Complete: \(complete ? "?1" : "?0")" : "Upload-Incomplete: \(complete ? "?0" : "?1")"
    }

    /// Starts an upload on the submissions route declaring the whole file, reads the 104, sends
    /// `cut` bytes and drops the connection. Returns the upload's path from the 104.
    static func startAndCut(port: Int, token: String, student: String, version: Int, file: Data, cut: Int) async throws -> (String, String) {
        let socket = try RawHTTPConnection(port: port)
        defer { socket.close() }
        try socket.send("POST /v1/students/\(student)/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: audio/wav\r\nUpload-Draft-Interop-Version: \(version)\r\n\(completeness(true, version: version))\r\n"
            + "Content-Length: \(file.count)\r\n\r\n")
        let interim = await socket.read(until: "\r\n\r\n")
        try socket.send(file.prefix(cut))
        try await Task.sleep(for: .milliseconds(50))
        let location = interim.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
            .map { $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        return (interim, location)
    }

    /// The offset read, on a connection of its own. A 423 (`upload_busy`: a cut append had not
    /// let go within the lock's 15 s, as on a starved machine) is asked again after its
    /// `Retry-After`, as a client does, for at most a minute: an append that never let go
    /// would hold the upload for its 5-minute body deadline and still fail the test.
    func head(_ daemon: TestDaemon, _ client: LiveClient, _ location: String, student: String, version: Int) async throws -> LiveAnswer {
        let port = client.port
        let headers = try await daemon.headers(.student, student, [.init("Upload-Draft-Interop-Version")!: "\(version)"])
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let answer = try await daemon.request(port: port, method: .head, location, headers: headers)
            guard answer.status.code == 423, ContinuousClock.now < deadline else { return answer }
            try await Task.sleep(for: .seconds(1))
        }
    }

    func resume(_ daemon: TestDaemon, _ client: LiveClient, _ location: String, student: String, version: Int,
                offset: Int, _ rest: Data) async throws -> LiveAnswer {
        var headers = try await daemon.headers(.student, student, [
            .init("Upload-Draft-Interop-Version")!: "\(version)", .init("Upload-Offset")!: "\(offset)",
            .contentType: version >= 6 ? "application/partial-upload" : "application/octet-stream",
        ])
        let flag = Self.completeness(true, version: version).split(separator: ":")
        headers[.init(String(flag[0]))!] = flag[1].trimmingCharacters(in: .whitespaces)
        return try await daemon.request(port: client.port, method: .patch, location, headers: headers, body: rest)
    }

    @Test("start, cut at a random byte, HEAD, resume, complete: 201 with the submission, the original byte for byte", arguments: [3, 4, 5, 6, 7, 8])
    func resumeAfterCut(version: Int) async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech_mono_s16_48k.wav"))
        var random = SeededGenerator(seed: UInt64(version))
        let cut = Int.random(in: 1_000..<(file.count - 1_000), using: &random)
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1001")
            let (interim, location) = try await Self.startAndCut(port: port, token: token, student: "S1001", version: version, file: file, cut: cut)
            #expect(interim.hasPrefix("HTTP/1.1 104 Upload Resumption Supported"), "\(interim)")
            #expect(interim.contains("Upload-Draft-Interop-Version: \(version)"))
            #expect(location.hasPrefix("/v1/uploads/upl_"))
            #expect(interim.contains("Upload-Limit:") == (version >= 6))

            let offset = try await head(daemon, client, location, student: "S1001", version: version)
            #expect(offset.status == .noContent)
            // What the server had durably when asked: all that was sent, unless a loaded machine
            // had not read it all within the second the offset read lets the append finish.
            let at = try #require(offset.headers[.init("Upload-Offset")!].flatMap(Int.init))
            #expect(at > 0 && at <= cut, "offset \(at), cut at \(cut)")
            #expect(offset.headers[.cacheControl] == "no-store")
            if version >= 4 {
                #expect(offset.headers[.init("Upload-Complete")!] == "?0")
            } else {
                #expect(offset.headers[.init("Upload-Incomplete")!] == "?1")
            }
            // Another student cannot see it; nothing was charged yet.
            #expect(try await head(daemon, client, location, student: "S1002", version: version).status == .notFound)
            #expect(try await daemon.runtime.database.attemptStatus(studentId: "S1001", policy: daemon.runtime.policy, now: daemon.clock.now)?.used == 0)

            let done = try await resume(daemon, client, location, student: "S1001", version: version, offset: at, Data(file.dropFirst(at)))
            #expect(done.status == .created)
            #expect(done.headers[.init("Upload-Offset")!] == "\(file.count)")
            let id = try #require(done.json?["id"] as? String)
            #expect(done.headers[.location] == "/v1/submissions/\(id)")
            #expect((done.json?["attempts"] as? [String: Any])?["used"] as? Int == 1)
            let submission = try #require(try await daemon.runtime.database.submission(id: id))
            let original = try Data(contentsOf: daemon.runtime.stateDirectory.artifacts.appendingPathComponent(submission.originalPath ?? ""))
            #expect(original == file)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: daemon.runtime.stateDirectory.uploadStaging.root.path)) ?? []).isEmpty)
            // Asking again after the fact: complete.
            let after = try await head(daemon, client, location, student: "S1001", version: version)
            #expect(after.headers[.init("Upload-Offset")!] == "\(file.count)")
        }
    }

    @Test("a silent recording: the completing request answers 422 `silent`, and no attempt is used", arguments: [3, 6, 7])
    func silentOnCompletion(version: Int) async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("digital_silence.wav"))
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1002")
            let (_, location) = try await Self.startAndCut(port: port, token: token, student: "S1002", version: version, file: file, cut: file.count / 3)
            let offset = try await head(daemon, client, location, student: "S1002", version: version)
            let at = try #require(offset.headers[.init("Upload-Offset")!].flatMap(Int.init))
            #expect(at > 0 && at <= file.count / 3)
            let done = try await resume(daemon, client, location, student: "S1002", version: version, offset: at, Data(file.dropFirst(at)))
            #expect(done.status == .unprocessableContent)
            #expect(done.json?["code"] as? String == "silent")
            #expect(try await daemon.runtime.database.attemptStatus(studentId: "S1002", policy: daemon.runtime.policy, now: daemon.clock.now)?.used == 0)
        }
    }

    @Test("an upload left to expire: 404 on HEAD, and nothing of it left in staging", arguments: [3, 6, 7])
    func expired(version: Int) async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.flac"))
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1003")
            let (_, location) = try await Self.startAndCut(port: port, token: token, student: "S1003", version: version, file: file, cut: 50_000)
            #expect(try await head(daemon, client, location, student: "S1003", version: version).status == .noContent)
            let staging = daemon.runtime.stateDirectory.uploadStaging.root.path
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).count == 1)
            daemon.clock.advance(by: 24 * 3_600 + 60)
            let gone = try await head(daemon, client, location, student: "S1003", version: version)
            #expect(gone.status == .notFound)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).isEmpty)
            #expect(daemon.stagingFiles().isEmpty)
        }
    }

    @Test("an upload in parts (incomplete creation, appends): 201 with the location, then 204s, then the answer; a stale offset is 409 with the real one")
    func inParts() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
        try await daemon.application().live { client in
            let created = try await client.execute(uri: "/v1/students/S1004/weeks/12/submissions", method: .post, headers: try await daemon.headers(
                .student, "S1004", [.init("Upload-Draft-Interop-Version")!: "7", .init("Upload-Complete")!: "?0", .contentType: "audio/ogg"]),
                body: ByteBuffer(bytes: file.prefix(10_000)))
            #expect(created.status == .created)
            #expect(created.headers[.init("Upload-Offset")!] == "10000" && created.headers[.init("Upload-Complete")!] == "?0")
            let location = try #require(created.headers[.location])
            #expect(location.hasPrefix("/v1/uploads/"))
            var part = try await daemon.headers(.student, "S1004", [
                .init("Upload-Draft-Interop-Version")!: "7", .init("Upload-Complete")!: "?0", .init("Upload-Offset")!: "10000",
                .contentType: "application/partial-upload",
            ])
            let middle = try await client.execute(uri: location, method: .patch, headers: part, body: ByteBuffer(bytes: file[10_000..<20_000]))
            #expect(middle.status == .noContent && middle.headers[.init("Upload-Offset")!] == "20000")
            let stale = try await client.execute(uri: location, method: .patch, headers: part, body: ByteBuffer(bytes: file[10_000..<20_000]))
            #expect(stale.status == .conflict && stale.headers[.init("Upload-Offset")!] == "20000")
            #expect(stale.headers[values: .init("Upload-Offset")!].count == 1)
            part[.init("Upload-Offset")!] = "20000"
            part[.init("Upload-Complete")!] = "?1"
            let last = try await client.execute(uri: location, method: .patch, headers: part, body: ByteBuffer(bytes: file.dropFirst(20_000)))
            #expect(last.status == .created && last.json?["state"] as? String == "processing")
            // The wrong media type for an append (interop 6 on): 415.
            part[.contentType] = "audio/ogg"
            let typed = try await client.execute(uri: location, method: .patch, headers: part, body: ByteBuffer(bytes: [1]))
            #expect(typed.status == .unsupportedMediaType)
            let unknown = try await client.execute(uri: location, method: .head, headers: try await daemon.headers(
                .student, "S1004", [.init("Upload-Draft-Interop-Version")!: "2"]))
            #expect(unknown.status == .badRequest)
        }
    }

    @Test("ten resumable uploads by one student completing at once: exactly the two the window allows are accepted, the others 429")
    func tenCompletingAtOnce() async throws {
        let daemon = try await TestDaemon { $0.uploads.maxOpenPerStudent = 10 }
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech.opus"))
        try await daemon.application().live { client in
            var locations: [String] = []
            for _ in 0..<10 {
                let created = try await client.execute(uri: "/v1/students/S1005/weeks/12/submissions", method: .post, headers: try await daemon.headers(
                    .student, "S1005", [.init("Upload-Draft-Interop-Version")!: "6", .init("Upload-Complete")!: "?0", .contentType: "audio/ogg"]),
                    body: ByteBuffer(bytes: file.prefix(30_000)))
                locations.append(try #require(created.headers[.location]))
            }
            // On separate connections, as `UploadRouteTests.concurrentUploads`: the live test
            // client has one, would send the ten one after another, and times each out after 20 s.
            let port = client.port
            let token = try await daemon.token(.student, "S1005")
            let rest = ByteBuffer(bytes: file.dropFirst(30_000))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for location in locations {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(location)")
                        request.method = .PATCH
                        request.headers.add(name: "Authorization", value: "Bearer \(token)")
                        request.headers.add(name: "Upload-Draft-Interop-Version", value: "6")
                        request.headers.add(name: "Upload-Complete", value: "?1")
                        request.headers.add(name: "Upload-Offset", value: "30000")
                        request.headers.add(name: "Content-Type", value: "application/partial-upload")
                        request.body = .bytes(rest)
                        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        return Int(response.status.code)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 2, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 8, "\(statuses)")
            let rows = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = 'S1005'")
            }
            #expect(rows == 2)
        }
    }

    @Test("a phone that reconnects while its old append is still open (half-open connection) gets the offset at once: the old append lets go and keeps what arrived")
    func reconnectPreemptsStaleAppend() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let file = try Data(contentsOf: fixturesDirectory.appendingPathComponent("speech_mono_s16_48k.wav"))
        try await daemon.application().live { client in
            let port = client.port
            let token = try await daemon.token(.student, "S1001")
            // The body stops half-way and the connection stays open, as a phone's does when its network drops.
            let stale = try RawHTTPConnection(port: port)
            defer { stale.close() }
            try stale.send("POST /v1/students/S1001/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: audio/wav\r\nUpload-Draft-Interop-Version: 6\r\nUpload-Complete: ?1\r\nContent-Length: \(file.count)\r\n\r\n")
            let interim = await stale.read(until: "\r\n\r\n")
            let location = try #require(interim.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }
                .map { $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces) })
            try stale.send(file.prefix(300_000))
            #expect(await daemon.eventually {
                ((try? FileManager.default.attributesOfItem(atPath: daemon.runtime.stateDirectory.uploadStaging.path(for: String(location.dropFirst("/v1/uploads/".count))))[.size] as? Int) ?? 0) >= 131_072
            })
            // Without letting go, the old append would hold the upload until its body deadline
            // (5 minutes) and this would be 423 `upload_busy` after 3 s of waiting.
            let offset = try await head(daemon, client, location, student: "S1001", version: 6)
            #expect(offset.status == .noContent, "\(offset.status)")
            let at = try #require(offset.headers[.init("Upload-Offset")!].flatMap(Int.init))
            #expect(at > 0 && at <= 300_000, "kept \(at) of the 300,000 bytes sent")
            let done = try await resume(daemon, client, location, student: "S1001", version: 6, offset: at, Data(file.dropFirst(at)))
            #expect(done.status == .created)
        }
    }
}
