import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TilawaS3
import TilawaTestSupport

/// Uploads resume on any node (DESIGN §13): two daemons on one PostgreSQL database and one S3
/// store, each with its own state directory, take turns with one tus upload.
@Suite("Uploads across nodes: a 3 MB recording resumed on another node; a node asked to let go of a stalled append",
       .enabled(if: PostgresTestServer.isRequested), .heavy)
struct UploadsAcrossNodesTests {

    /// Two nodes of one installation: the database, the store, the token key shared.
    struct Cluster {
        let state: CommandLineStateFixture
        let server: S3TestServer
        let client: S3Client
        let bucket: String
        let environment: [String: String]
        let a: ServeProcess
        let b: ServeProcess
        let token: String

        func stop() async {
            for node in [a, b] { node.process.signal(SIGKILL) }
            state.remove()
        }

        var logs: String {
            [a, b].map { (try? String(contentsOfFile: $0.logPath, encoding: .utf8))?.suffix(3000) ?? "" }.joined(separator: "\n---\n")
        }
    }

    static func cluster() async throws -> Cluster {
        let state = try await CommandLineStateFixture(importSamples: false)
        let server = try await S3TestServer.shared()
        let client = S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey),
                              region: server.region)
        let bucket = S3TestServer.uniqueBucket("tilawa-nodes")
        try await client.createBucket(bucket)
        var environment = try server.nodeEnvironment(secrets: state.scratch.path("secrets"), bucket: bucket, prefix: "node")
        environment["TILAWA_DATABASE_URL"] = try SharedPostgres.database()
        environment["TILAWA_TEST_CLOCK"] = S3ArtifactsTests.programmeClock
        let imported = try await state.run(["roster", "import", CommandLineStateFixture.sample("program.yaml"),
                                            CommandLineStateFixture.sample("students.csv")], environment: environment)
        try #require(imported.status == 0, "\(imported.stderr)")
        var nodes: [ServeProcess] = []
        for name in ["a", "b"] {
            let directory = state.scratch.path(name)
            try FileManager.default.createDirectory(atPath: directory + "/var", withIntermediateDirectories: true)
            nodes.append(try ServeProcess(stateDirectory: directory + "/var", port: try unusedPort(), directory: directory, environment: environment))
        }
        let token = try await state.run(["token", "issue", "--student", "S1001"], environment: environment).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let cluster = Cluster(state: state, server: server, client: client, bucket: bucket, environment: environment, a: nodes[0], b: nodes[1], token: token)
        for node in nodes where await !node.waitUntilReady() {
            let logs = cluster.logs
            await cluster.stop()
            throw StartFailure(log: logs)
        }
        return cluster
    }

    struct StartFailure: Error, CustomStringConvertible {
        let log: String
        var description: String { "a node did not become ready:\n\(log)" }
    }

    /// A WAV of about 3.2 MB (33 s of speech: the fixture's samples three times over).
    /// Runs `body` on a fresh cluster, recording its failure with the nodes' logs, and stops it.
    static func withCluster(_ body: (Cluster) async throws -> Void) async throws {
        let cluster = try await cluster()
        do {
            try await body(cluster)
        } catch {
            Issue.record("\(error)\n\(cluster.logs)")
        }
        await cluster.stop()
    }

    /// The original of submission `id` in the store is `recording`, byte for byte, and no
    /// append's object is left.
    func expectStored(_ recording: Data, submission id: String, _ cluster: Cluster) async throws {
        let keys = try await cluster.client.listObjects(bucket: cluster.bucket, prefix: "node/originals/").objects.map(\.key)
        let original = try #require(keys.first { $0.contains(id) && $0.hasSuffix(".wav") }, "\(keys)")
        let stored = try await cluster.client.getBytes(bucket: cluster.bucket, key: original)
        #expect(stored.count == recording.count && Data(stored) == recording, "\(stored.count) bytes stored of \(recording.count)")
        let segments = try await cluster.client.listObjects(bucket: cluster.bucket, prefix: "node/uploads/").objects.map(\.key)
        #expect(segments.isEmpty, "\(segments)")
    }

    static func threeMegabyteRecording() throws -> Data {
        let source = try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech_mono_s16_48k.wav")))
        let marker = try #require(source.range(of: Data("data".utf8)))
        let samples = source[(marker.upperBound + 4)...]
        var pcm = Data()
        for _ in 0..<3 { pcm.append(samples) }
        func le32(_ value: Int) -> Data { withUnsafeBytes(of: UInt32(value).littleEndian) { Data($0) } }
        func le16(_ value: Int) -> Data { withUnsafeBytes(of: UInt16(value).littleEndian) { Data($0) } }
        var wav = Data("RIFF".utf8) + le32(36 + pcm.count) + Data("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
        wav += le32(48_000) + le32(96_000) + le16(2) + le16(16) + Data("data".utf8) + le32(pcm.count)
        return wav + pcm
    }

    @Test("""
        The draft protocol (interop 7) across nodes: a 3 MB recording POSTed in part to A, appended on B, completed on A: \
        one submission whose original is the recording byte for byte, no append object left
        """)
    func draftResumedOnAnotherNode() async throws {
        try await Self.withCluster(draftResumed)
    }

    func draftResumed(_ cluster: Cluster) async throws {
        let recording = try Self.threeMegabyteRecording()
        let megabyte = 1 << 20
        let draft = [("Upload-Draft-Interop-Version", "7")]
        let created = try await send("POST", cluster.a, "/v1/students/S1001/weeks/12/submissions", cluster, tus: false,
                                     headers: draft + [("Upload-Complete", "?0"), ("Content-Type", "audio/wav")], body: recording[0..<megabyte])
        try #require(created.status == 201 && created.headers["upload-offset"] == "\(megabyte)", "\(created.status) \(created.text)")
        let location = try #require(created.headers["location"])

        // Node B learns the offset from the database, and appends after it.
        let head = try await send("HEAD", cluster.b, location, cluster, tus: false, headers: draft)
        #expect(head.headers["upload-offset"] == "\(megabyte)", "\(head.status) \(head.headers)")
        let append = draft + [("Content-Type", "application/partial-upload")]
        let middle = try await send("PATCH", cluster.b, location, cluster, tus: false,
                                    headers: append + [("Upload-Offset", "\(megabyte)"), ("Upload-Complete", "?0")],
                                    body: recording[megabyte..<(2 * megabyte)])
        #expect(middle.status == 204 && middle.headers["upload-offset"] == "\(2 * megabyte)", "\(middle.status) \(middle.text)")

        // A, which never saw B's bytes, completes it.
        let last = try await send("PATCH", cluster.a, location, cluster, tus: false,
                                  headers: append + [("Upload-Offset", "\(2 * megabyte)"), ("Upload-Complete", "?1")],
                                  body: recording[(2 * megabyte)...])
        try #require(last.status == 201, "\(last.status) \(last.text)")
        let answer = try #require((try? JSONSerialization.jsonObject(with: last.body)) as? [String: Any])
        let id = try #require(answer["id"] as? String)
        try await expectStored(recording, submission: id, cluster)
    }

    @Test("""
        A 3 MB upload started on node A, continued on node B (which has none of its bytes but the store's) and finished on A: \
        one submission whose original is the recording byte for byte; the appends' objects are gone from the store afterwards
        """)
    func resumedOnAnotherNode() async throws {
        try await Self.withCluster(resumed)
    }

    func resumed(_ cluster: Cluster) async throws {
        let recording = try Self.threeMegabyteRecording()
        #expect(recording.count > 3_000_000)
        let location = try await create(on: cluster.a, cluster, length: recording.count)
        let megabyte = 1 << 20
        let first = try await patch(cluster.a, location, offset: 0, body: recording[0..<megabyte], cluster)
        #expect(first.status == 204 && first.headers["upload-offset"] == "\(megabyte)", "\(first.status) \(first.text)")

        // Node B knows the offset (the database) and appends after it.
        let head = try await send("HEAD", cluster.b, location, cluster)
        #expect(head.status == 200 && head.headers["upload-offset"] == "\(megabyte)", "\(head.status) \(head.headers)")
        let second = try await patch(cluster.b, location, offset: megabyte, body: recording[megabyte..<(2 * megabyte)], cluster)
        #expect(second.status == 204 && second.headers["upload-offset"] == "\(2 * megabyte)", "\(second.status) \(second.text)")

        // Back on A, which never saw B's bytes: it fetches them from the store and judges the whole.
        let last = try await patch(cluster.a, location, offset: 2 * megabyte, body: recording[(2 * megabyte)...], cluster)
        #expect(last.status == 204 && last.headers["upload-offset"] == "\(recording.count)", "\(last.status) \(last.text)")
        let outcome = try await send("GET", cluster.b, location, cluster)
        #expect(outcome.status == 200, "\(outcome.status) \(outcome.text)")
        let answer = try #require((try? JSONSerialization.jsonObject(with: outcome.body)) as? [String: Any])
        let id = try #require(answer["id"] as? String)

        // The original in the store is the recording, byte for byte; the appends' objects go
        // once the upload is judged.
        try await expectStored(recording, submission: id, cluster)
    }

    @Test("""
        An append stalled on node A (its phone gone quiet half-way) is let go when the phone asks node B for the offset: \
        B answers with what A received, not 423, and the upload finishes on B
        """)
    func stalledAppendLetGo() async throws {
        try await Self.withCluster(letGo)
    }

    func letGo(_ cluster: Cluster) async throws {
        let recording = try Self.threeMegabyteRecording()
        let location = try await create(on: cluster.a, cluster, length: recording.count)
        // Half the body is sent and then nothing: A waits for the rest (its deadline is minutes away).
        let half = recording.count / 2
        let connection = try RawHTTPConnection(port: cluster.a.port)
        defer { connection.close() }
        try connection.send("""
            PATCH \(location) HTTP/1.1\r
            Host: 127.0.0.1\r
            Authorization: Bearer \(cluster.token)\r
            Tus-Resumable: 1.0.0\r
            Content-Type: application/offset+octet-stream\r
            Upload-Offset: 0\r
            Content-Length: \(recording.count)\r
            \r

            """)
        try connection.send(recording[0..<half])
        // B holds no part of it; A holds the upload until told to let go.
        try await Task.sleep(for: .seconds(1))
        let head = try await send("HEAD", cluster.b, location, cluster)
        #expect(head.status == 200, "\(head.status) \(head.text)")
        let offset = try #require(head.headers["upload-offset"].flatMap(Int.init), "\(head.headers)")
        #expect(offset > 0 && offset <= half, "\(offset)")
        let rest = try await patch(cluster.b, location, offset: offset, body: recording[offset...], cluster)
        #expect(rest.status == 204 && rest.headers["upload-offset"] == "\(recording.count)", "\(rest.status) \(rest.text)")
        let outcome = try await send("GET", cluster.a, location, cluster)
        #expect(outcome.status == 200 && outcome.text.contains("\"student_id\":\"S1001\""), "\(outcome.status) \(outcome.text)")
    }

    // MARK: Requests

    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func create(on node: ServeProcess, _ cluster: Cluster, length: Int) async throws -> String {
        let created = try await send("POST", node, "/v1/students/S1001/weeks/12/uploads", cluster, headers: [
            ("Upload-Length", "\(length)"), ("Upload-Metadata", "filetype \(Data("audio/wav".utf8).base64EncodedString())"),
        ])
        try #require(created.status == 201, "\(created.status) \(created.text)")
        return try #require(created.headers["location"])
    }

    func patch(_ node: ServeProcess, _ location: String, offset: Int, body: Data, _ cluster: Cluster) async throws -> Answer {
        try await send("PATCH", node, location, cluster, headers: [
            ("Upload-Offset", "\(offset)"), ("Content-Type", "application/offset+octet-stream"),
        ], body: body)
    }

    func send(_ method: String, _ node: ServeProcess, _ path: String, _ cluster: Cluster, tus: Bool = true, headers: [(String, String)] = [],
              body: Data? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(node.port)\(path)")
        request.method = .init(rawValue: method)
        request.headers.add(name: "Authorization", value: "Bearer \(cluster.token)")
        if tus { request.headers.add(name: "Tus-Resumable", value: "1.0.0") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: fields, body: Data(buffer: bytes))
    }
}
