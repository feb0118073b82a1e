import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import Synchronization
import Testing
@testable import TilawaDaemon
@testable import TilawaS3
import TilawaStore
import TilawaTestSupport

/// `artifacts.url: s3://bucket/prefix` (DESIGN §13): a real daemon whose artifacts live in a
/// real store that checks signatures (`S3TestServer`), the local `artifacts/` only a work area.
@Suite("Artifacts in an S3 store: a daemon writes, serves and removes them there", .heavy)
struct S3ArtifactsTests {
    static let bucket = "tilawa-artifacts"
    /// Sunday 22 November 2026 15:00 UTC (week 12 of fall 2026 open) on the daemon's programme
    /// clock only: the system clock stays real, as the store checks the signatures' dates.
    static let programmeClock = "\(Int(ISO8601DateFormatter().date(from: "2026-11-22T15:00:00Z")!.timeIntervalSince1970)),1"

    struct Setup {
        let state: CommandLineStateFixture
        let server: S3TestServer
        let client: S3Client
        let environment: [String: String]
    }

    @Test("""
        A recording's original, Ogg, MP4, CAF and peaks land in the bucket before its row commits and none stays on disk; \
        audio is served from there whole, as a 206 range and as MP4; a variant deleted is made again on demand; \
        export reads from there; status names the store; backup refuses (78); a withdrawal removes the objects; \
        with the store down /readyz is 200 degraded (artifact_store) and an upload is 503 and records nothing
        """)
    func recordingLifecycle() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let server = try await S3TestServer.start()
        do {
            try await lifecycle(try await setUp(state, server))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func setUp(_ state: CommandLineStateFixture, _ server: S3TestServer) async throws -> Setup {
        let client = S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey),
                              region: server.region)
        try await client.createBucket(Self.bucket)
        try (server.accessKey + "\n").write(toFile: state.scratch.path("s3-access"), atomically: true, encoding: .utf8)
        try (server.secretKey + "\n").write(toFile: state.scratch.path("s3-secret"), atomically: true, encoding: .utf8)
        let environment = [
            "TILAWA_ARTIFACTS_URL": "s3://\(Self.bucket)/node", "TILAWA_S3_ENDPOINT": server.endpoint.absoluteString,
            "TILAWA_S3_ACCESS_KEY_FILE": "s3-access", "TILAWA_S3_SECRET_KEY_FILE": "s3-secret",
            "TILAWA_TEST_CLOCK": Self.programmeClock,
        ]
        return Setup(state: state, server: server, client: client, environment: environment)
    }

    func lifecycle(_ setup: Setup) async throws {
        let state = setup.state, client = setup.client
        let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: setup.environment)
        defer { daemon.process.signal(SIGKILL) }
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let token = try await state.run(["token", "issue", "--student", "S1001"], environment: setup.environment).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)

        // In: accepted, encoded by the daemon's job from the original it fetches back.
        let posted = try await send("POST", daemon.port, "/v1/students/S1001/weeks/12/submissions", token: token,
                                    body: try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech_mono_s16_48k.wav"))))
        #expect(posted.status == 201, "\(String(decoding: posted.body, as: UTF8.self))")
        let answer = try #require((try? JSONSerialization.jsonObject(with: posted.body)) as? [String: Any])
        let id = try #require(answer["id"] as? String)
        let submission = try #require(try await state.submission(id, reaching: "awaiting_feedback"))
        #expect(submission["state"] == "awaiting_feedback", "\(daemon.log)")
        let original: String = try #require(submission["originalPath"]), audio: String = try #require(submission["audioPath"])
        let waveform: String = try #require(submission["waveformPath"])
        let stem = String(audio.dropLast(".opus".count))

        let keys = Set(try await client.listObjects(bucket: Self.bucket, prefix: "node/").objects.map(\.key)).subtracting(["node/.tilawa-installation"])
        #expect(keys == Set([original, audio, waveform, stem + ".m4a", stem + ".caf"].map { "node/" + $0 }), "\(keys)")
        let local = try await runProcess("/usr/bin/find", [state.stateDirectory + "/artifacts", "-type", "f"])
        #expect(local.stdout.isEmpty, "nothing stays in the local work area: \(local.stdout)")

        // Out: the proxied object, whole and as a range, and the MP4 variant.
        let ogg = try await client.getBytes(bucket: Self.bucket, key: "node/" + audio)
        let whole = try await send("GET", daemon.port, "/v1/submissions/\(id)/audio", token: token)
        #expect(whole.status == 200 && Array(whole.body) == ogg && whole.headers["content-type"] == "audio/ogg")
        let part = try await send("GET", daemon.port, "/v1/submissions/\(id)/audio", token: token, headers: [("Range", "bytes=100-1099")])
        #expect(part.status == 206 && Array(part.body) == Array(ogg[100...1099]), "\(part.status) \(part.body.count)")
        #expect(part.headers["content-range"] == "bytes 100-1099/\(ogg.count)")
        let tail = try await send("GET", daemon.port, "/v1/submissions/\(id)/audio", token: token, headers: [("Range", "bytes=-10")])
        #expect(tail.status == 206 && Array(tail.body) == Array(ogg.suffix(10)))
        let mp4 = try await send("GET", daemon.port, "/v1/submissions/\(id)/audio?format=mp4", token: token)
        let storedMP4 = try await client.getBytes(bucket: Self.bucket, key: "node/\(stem).m4a")
        #expect(mp4.status == 200 && Array(mp4.body) == storedMP4)
        let peaks = try await send("GET", daemon.port, "/v1/submissions/\(id)/waveform", token: token)
        let storedPeaks = try await client.getBytes(bucket: Self.bucket, key: "node/" + waveform)
        #expect(peaks.status == 200 && Array(peaks.body) == storedPeaks)

        // A variant lost from the store is made again from the Ogg object and stored.
        try await client.deleteObject(bucket: Self.bucket, key: "node/\(stem).caf")
        // Two players asking at once (iOS opens several requests): both made, both whole.
        let port = daemon.port
        async let first = send("GET", port, "/v1/submissions/\(id)/audio?format=caf", token: token)
        async let second = send("GET", port, "/v1/submissions/\(id)/audio?format=caf", token: token)
        let (caf, other) = try await (first, second)
        #expect(caf.status == 200 && caf.body.prefix(4) == Data("caff".utf8), "\(caf.status)")
        #expect(other.status == 200 && other.body == caf.body, "\(other.status)")
        let remade = try await client.headObject(bucket: Self.bucket, key: "node/\(stem).caf")
        #expect(remade?.size == Int64(caf.body.count))

        // The student's export reads the recording from the store.
        let exported = try await state.run(["export", "--student", "S1001", "archive.zip"], environment: setup.environment)
        #expect(exported.status == 0, "\(exported.stderr)")
        let unzipped = try await runProcess("/bin/bash", ["-c", "unzip -p archive.zip recordings/\(id).ogg > exported.ogg"],
                                            directory: state.scratch.path)
        #expect(unzipped.status == 0, "\(unzipped.stderr)")
        #expect((try? Data(contentsOf: URL(fileURLWithPath: state.scratch.path("exported.ogg")))).map(Array.init) == ogg,
                "the zip holds the object's bytes")

        // The sweep by listing: an object no row names goes, a row whose object is gone is
        // counted, the variants' bytes are counted (a clock moved past the store's hour of grace).
        let storedCAF = try #require(try await client.headObject(bucket: Self.bucket, key: "node/\(stem).caf")).size
        _ = try await client.putObject(bucket: Self.bucket, key: "node/submissions/2026/11/orphan.opus", bytes: [1, 2, 3])
        // One in a month no row is dated in (a delete that failed, years ago): found by the store's folders.
        _ = try await client.putObject(bucket: Self.bucket, key: "node/comments/2020/01/forgotten.opus", bytes: [4, 5, 6])
        // An append of an upload no longer open (a node died before removing it) goes; an open upload's stays.
        _ = try await client.putObject(bucket: Self.bucket, key: "node/uploads/upl_gone/0-seg_1", bytes: [7])
        let open = try await send("POST", daemon.port, "/v1/students/S1001/weeks/11/uploads", token: token,
                                  headers: [("Tus-Resumable", "1.0.0"), ("Upload-Length", "100000")])
        let openId = try #require(open.headers["location"]?.split(separator: "/").last.map(String.init), "\(open.status)")
        _ = try await client.putObject(bucket: Self.bucket, key: "node/uploads/\(openId)/0-seg_2", bytes: [8])
        try await client.deleteObject(bucket: Self.bucket, key: "node/" + waveform)
        let stateDirectory = StateDirectory(path: state.stateDirectory) { workArea in
            S3ArtifactStorage(client: client, location: S3Location(bucket: Self.bucket, prefix: "node"), workArea: workArea)
        }
        let report = try await onOwnThread {
            try state.withDatabase { database in
                try ArtifactSweeper(database: database, stateDirectory: stateDirectory, grace: 0)
                    .sweep(now: Date().addingTimeInterval(ArtifactSweeper.remoteGrace + 60), originalsRetentionDays: nil)
            }
        }
        #expect(report.orphansRemoved == 3 && report.missingCount == 1 && report.missing == [waveform], "\(report)")
        #expect(report.variantBytes == Int64(storedMP4.count) + storedCAF, "\(report.variantBytes)")
        let orphan = try await client.headObject(bucket: Self.bucket, key: "node/submissions/2026/11/orphan.opus")
        let forgotten = try await client.headObject(bucket: Self.bucket, key: "node/comments/2020/01/forgotten.opus")
        #expect(orphan == nil && forgotten == nil)
        let appends = try await client.listObjects(bucket: Self.bucket, prefix: "node/uploads/").objects.map(\.key)
        #expect(appends == ["node/uploads/\(openId)/0-seg_2"], "\(appends)")
        // Cancelled, the upload's objects go with it.
        let cancelled = try await send("DELETE", daemon.port, "/v1/uploads/\(openId)", token: token, headers: [("Tus-Resumable", "1.0.0")])
        #expect(cancelled.status == 204, "\(cancelled.status)")

        // Operations: status says where artifacts are and what the sweep found; a backup would
        // copy rows without their files.
        let status = try await state.run(["status", "--json"], environment: setup.environment)
        let json = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any]
        let disk = json?["disk"] as? [String: Any], missing = json?["missing_artifacts"] as? [String: Any]
        #expect(disk?["artifacts_url"] as? String == "s3://\(Self.bucket)/node/", "\(status.stdout)")
        #expect((missing?["last_full_sweep"] as? [String: Any])?["count"] as? Int == 1 && missing?["checked_files"] as? Int == 0,
                "\(String(describing: missing))")
        let backup = try await state.run(["backup", "create", "backup"], environment: setup.environment)
        // Refused for the store, naming the bucket's versioning (on PostgreSQL for the database as
        // well, with pg_dump: both need their own tools).
        #expect(backup.status == 78 && backup.stderr.contains("versioned"), "\(backup.stderr)")
        #expect(state.databaseURL == nil ? backup.stderr.contains("artifacts_remote")
                                         : backup.stderr.contains("database_remote") && backup.stderr.contains("pg_dump"), "\(backup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state.scratch.path("backup")))

        // A withdrawal removes every object of the recording.
        let withdrawn = try await send("DELETE", daemon.port, "/v1/submissions/\(id)", token: token)
        #expect((200..<300).contains(withdrawn.status), "\(String(decoding: withdrawn.body, as: UTF8.self))")
        let left = try await client.listObjects(bucket: Self.bucket, prefix: "node/").objects.map(\.key).filter { $0 != "node/.tilawa-installation" }
        #expect(left.isEmpty, "\(left)")

        // A coach's photo imported with the store in use goes there and is served from there;
        // one replaced goes from the store at the next import.
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x11, count: 60)
        try FileManager.default.createDirectory(atPath: state.scratch.path("images"), withIntermediateDirectories: true)
        try jpeg.write(to: URL(fileURLWithPath: state.scratch.path("images/c01.jpg")))
        var programme = try String(contentsOfFile: CommandLineStateFixture.sample("program.yaml"), encoding: .utf8)
        programme = programme.replacingOccurrences(of: "    places: true\n  - id: C02\n", with: "    places: true\n    photo: images/c01.jpg\n  - id: C02\n")
        try programme.write(toFile: state.scratch.path("program.yaml"), atomically: true, encoding: .utf8)
        let imported = try await state.run(["roster", "import", state.scratch.path("program.yaml"), CommandLineStateFixture.sample("students.csv")],
                                           environment: setup.environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let photos = try await client.listObjects(bucket: Self.bucket, prefix: "node/photos/").objects.map(\.key)
        #expect(photos.count == 1 && photos.first?.hasSuffix(".jpg") == true, "\(photos)")
        #expect(!FileManager.default.fileExists(atPath: state.stateDirectory + "/photos/" + (photos.first ?? "x").split(separator: "/").last.map(String.init)!))
        let photo = try await send("GET", daemon.port, "/v1/coaches/C01/photo", token: token)
        #expect(photo.status == 200 && photo.body == jpeg && photo.headers["content-type"] == "image/jpeg", "\(photo.status)")
        try (jpeg + Data([0x12])).write(to: URL(fileURLWithPath: state.scratch.path("images/c01.jpg")))
        #expect(try await state.run(["roster", "import", state.scratch.path("program.yaml"), CommandLineStateFixture.sample("students.csv")],
                                    environment: setup.environment).status == 0)
        let replaced = try await client.listObjects(bucket: Self.bucket, prefix: "node/photos/").objects.map(\.key)
        #expect(replaced.count == 1 && replaced != photos, "the old photo goes: \(replaced)")

        // The prefix is this installation's: another database pointed at it is refused (78)
        // before its sweep could take these objects for orphans.
        let stranger = try await CommandLineStateFixture()
        defer { stranger.remove() }
        var rivalEnvironment = setup.environment
        rivalEnvironment["TILAWA_S3_ACCESS_KEY_FILE"] = state.scratch.path("s3-access")
        rivalEnvironment["TILAWA_S3_SECRET_KEY_FILE"] = state.scratch.path("s3-secret")
        let rival = try ServeProcess(state: stranger, port: try unusedPort(), environment: rivalEnvironment)
        for _ in 0..<600 where rival.process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        let refusedStart = await rival.terminate()
        #expect(refusedStart == 78 && rival.log.contains("holds another installation"), "\(rival.log.suffix(600))")
        let marker = try await client.getBytes(bucket: Self.bucket, key: "node/.tilawa-installation")
        let installation = try state.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'installation_id'") }
        #expect(String(decoding: marker, as: UTF8.self) == (installation ?? "?") + "\n")

        // The store down: every node's outage at once, so the node stays in the balancer's
        // rotation, degraded, naming the check; the upload is refused with a reason and
        // nothing is recorded or left behind.
        let ready = try await send("GET", daemon.port, "/readyz", token: token)
        let healthy = (try? JSONSerialization.jsonObject(with: ready.body)) as? [String: Any]
        #expect(ready.status == 200 && healthy?["status"] as? String == "ok", "\(String(decoding: ready.body, as: UTF8.self))")
        await setup.server.stop()
        let degraded = try await send("GET", daemon.port, "/readyz", token: token)
        let readiness = (try? JSONSerialization.jsonObject(with: degraded.body)) as? [String: Any]
        let failing = (readiness?["failing_checks"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(degraded.status == 200 && readiness?["status"] as? String == "degraded" && failing == ["artifact_store_unavailable"],
                "\(degraded.status) \(String(decoding: degraded.body, as: UTF8.self))")
        let before = try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? 0 }
        let refused = try await send("POST", daemon.port, "/v1/students/S1001/weeks/12/submissions", token: token,
                                     body: try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech_mono_s16_48k.wav"))))
        let problem = (try? JSONSerialization.jsonObject(with: refused.body)) as? [String: Any]
        #expect(refused.status == 503 && problem?["code"] as? String == "artifact_store_unavailable" && refused.headers["retry-after"] == "60",
                "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
        #expect(try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? 0 } == before)
        let staged = try await runProcess("/usr/bin/find", [state.stateDirectory + "/staging", state.stateDirectory + "/artifacts", "-type", "f"])
        #expect(staged.stdout.isEmpty, "\(staged.stdout)")
        // Said when the store refuses, not after the S3 request's 120-s deadline: the bound only
        // tells the two apart (a busy box may take many seconds; never a hundred).
        #expect(refused.elapsed < .seconds(100), "the store's refusal is said at once, not after the request's deadline: \(refused.elapsed)")
        // A read the store cannot serve is the same problem, with the same Retry-After.
        let unserved = try await send("GET", daemon.port, "/v1/coaches/C01/photo", token: token)
        let unservedProblem = (try? JSONSerialization.jsonObject(with: unserved.body)) as? [String: Any]
        #expect(unserved.status == 503 && unservedProblem?["code"] as? String == "artifact_store_unavailable"
                    && unserved.headers["retry-after"] == "60",
                "\(unserved.status) \(unserved.headers) \(String(decoding: unserved.body, as: UTF8.self))")
        let stopped = await daemon.terminate()
        #expect(stopped == 0, "a stop is not held by a proxied response: \(daemon.log.split(separator: "\n").suffix(5).joined(separator: " // "))")
    }

    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
        let elapsed: Duration
    }

    func send(_ method: String, _ port: Int, _ path: String, token: String, headers: [(String, String)] = [], body: Data? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .init(rawValue: method)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "audio/wav")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let started = ContinuousClock.now
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(180))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: fields, body: Data(buffer: bytes), elapsed: ContinuousClock.now - started)
    }
}

@Suite("S3 remote: which failures are tried again, which paths are keys", .heavy)
struct S3RetryTests {
    @Test("A path with an empty, . or .. segment never becomes a key (a store that normalises would leave the prefix)",
          arguments: [("submissions/2026/11/x.opus", "node/submissions/2026/11/x.opus"), ("photos/ab.jpg", "node/photos/ab.jpg"),
                      ("../x", nil), ("submissions/../../x", nil), ("a/./b", nil), ("a//b", nil), ("", nil), ("/etc/passwd", nil)]
                      as [(String, String?)])
    func keys(_ relative: String, _ expected: String?) {
        let remote = S3ArtifactStorage(
            client: S3Client(endpoint: URL(string: "http://127.0.0.1:9")!, credentials: S3Credentials(accessKey: "a", secretKey: "b"), region: "us-east-1"),
            location: S3Location(bucket: "bucket", prefix: "node"), workArea: URL(fileURLWithPath: "/nonexistent"))
        #expect((try? remote.key(relative)) == expected)
    }

    @Test("No answer and 5xx are tried again; a refusal or a missing key is not",
          arguments: [(S3Error(code: "unreachable", message: ""), true), (S3Error(code: "SlowDown", message: "", status: 503), true),
                      (S3Error(code: "InternalError", message: "", status: 500), true),
                      (S3Error(code: "AccessDenied", message: "", status: 403), false), (S3Error(code: "NoSuchKey", message: "", status: 404), false),
                      (S3Error(code: "BadDigest", message: "", status: 400), false)])
    func transient(_ error: S3Error, _ retried: Bool) {
        #expect(S3ArtifactStorage.isTransient(error) == retried)
    }

    @Test("A request that fails twice in passing succeeds on the third try; one refused is tried once; three failures give up")
    func attempts() async throws {
        let calls = Counter()
        let value = try await S3ArtifactStorage.retrying {
            if calls.next() < 3 { throw S3Error(code: "unreachable", message: "reset") }
            return "stored"
        }
        #expect(value == "stored" && calls.value == 3)

        let refused = Counter()
        await #expect(throws: S3Error.self) {
            try await S3ArtifactStorage.retrying { () async throws -> Int in
                _ = refused.next()
                throw S3Error(code: "AccessDenied", message: "", status: 403)
            }
        }
        #expect(refused.value == 1)

        let down = Counter()
        await #expect(throws: S3Error.self) {
            try await S3ArtifactStorage.retrying { () async throws -> Int in
                _ = down.next()
                throw S3Error(code: "SlowDown", message: "", status: 503)
            }
        }
        #expect(down.value == 3)
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        /// Counts a call; returns its number (1 for the first).
        func next() -> Int { count.withLock { $0 += 1; return $0 } }
    }
}
