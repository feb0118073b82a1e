import AsyncHTTPClient
import HTTPTypes
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
import TilawaPostgres
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A clock tests can move.
final class TestClock: Sendable {
    private let instant: Mutex<Date>

    init(_ start: Date) { instant = Mutex(start) }

    var now: Date { instant.withLock { $0 } }
    func set(_ date: Date) { instant.withLock { $0 = date } }
    func advance(by seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// A complete daemon (runtime, API, encode workers) on a scratch state directory with the
/// sample programme imported, for live HTTP tests on a loopback port.
struct TestDaemon {
    let scratch: ScratchDirectory
    let runtime: TilawaRuntime
    let api: APIContext
    let clock: TestClock
    let logger: Logger

    /// Sunday 22 November 2026, 10:00 in New York: week 12 of fall 2026 is open.
    static let midSemester = Date(timeIntervalSince1970: 1_795_359_600)

    /// A daemon on a new state directory with the sample imported, or — with `stateDirectory` —
    /// on an existing one (a restored backup) as it is.
    init(configure: (inout TilawaConfiguration) -> Void = { _ in }, at start: Date = TestDaemon.midSemester,
         stateDirectory existing: String? = nil) async throws {
        scratch = try ScratchDirectory()
        var configuration = TilawaConfiguration(stateDirectory: existing ?? scratch.path("var"), workingDirectory: scratch.path)
        configuration.http.port = 0
        configuration.storage.minFreeBytes = 0
        if TestEngine.current == .postgres, existing == nil {
            // The run asked for PostgreSQL (`make test-postgres`): a database of its own on the shared server.
            configuration.database.postgres = PostgresLocation(url: try SharedPostgres.database())
            // Dozens of daemons run at once in one suite: a few connections each.
            configuration.database.maximumConnections = 3
        }
        configure(&configuration)
        let clock = TestClock(start)
        self.clock = clock
        runtime = try TilawaRuntime(configuration: configuration, clock: { clock.now })
        let program = try ProgramFile.parse(
            try String(contentsOfFile: packageRoot.appendingPathComponent("config/program.yaml").path, encoding: .utf8),
            source: "program.yaml")
        let students = try StudentsCSV.parse(
            try String(contentsOfFile: packageRoot.appendingPathComponent("config/students.csv").path, encoding: .utf8),
            source: "students.csv")
        if existing == nil {
            _ = try runtime.database.importRoster(program: program, students: students, studentsSource: "students.csv", now: clock.now)
        }
        // The sample's `enrolled` welcomes belong to the import, long before each test: as if
        // delivered then, so each test's outbox holds only what the test does.
        let importedAt = clock.now
        try await runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE event SET deliveredAt = ? WHERE type = 'enrolled'", arguments: [importedAt])
        }
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        self.logger = logger
        let authority = try await TokenAuthority(key: Array(repeating: 7, count: 32))
        api = APIContext(runtime: runtime, pool: AudioWorkPool(threads: 2), wakeup: WakeupSignal(), metrics: TilawaMetrics(),
                         authority: authority, startedAt: start, scimToken: try configuration.readSCIMToken())
    }

    /// The application with its encode workers (`encoding: false`: none, so jobs stay queued).
    func application(encoding: Bool = true) -> some ApplicationProtocol {
        let workers = EncodeWorkerService(runtime: runtime, pool: api.pool, wakeup: api.wakeup, workers: 2,
                                          pollInterval: .milliseconds(100), metrics: api.metrics, logger: logger)
        return TilawaServer.makeApplication(api: api, logger: logger, services: encoding ? [workers] : [])
    }

    /// A bearer token for `subject` in `role`, valid for an hour of the test clock.
    func token(_ role: Role, _ subject: String, ttl: TimeInterval = 3_600) async throws -> String {
        try await api.authority.issue(subject: subject, role: role, ttl: ttl, now: clock.now)
    }

    func headers(_ role: Role, _ subject: String, _ extra: HTTPFields = [:]) async throws -> HTTPFields {
        var fields = extra
        fields[.authorization] = "Bearer \(try await token(role, subject))"
        return fields
    }

    static func fixture(_ name: String) throws -> ByteBuffer {
        ByteBuffer(bytes: try Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
    }

    func stagingFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: runtime.stateDirectory.staging.path)) ?? []
    }

    /// Files under `staging/` that this process holds open, named or not (an upload being
    /// written may be an unnamed temporary file that only `/proc/self/fd` shows).
    func openStagingFiles() -> [String] {
        let staging = runtime.stateDirectory.staging.path
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(staging + "/") }
    }

    /// `tilawa_uploads_total` for one outcome and reason, or nil when none was counted.
    func uploadsCounted(_ outcome: String, _ reason: String) -> Double? {
        metricValue(#"tilawa_uploads_total{outcome=""# + outcome + #"",reason=""# + reason + #""}"#, in: api.metrics)
    }

    /// Waits (bounded: `seconds`, `TestTime.hangSeconds` by default) until `condition` holds; returns whether it did.
    func eventually(seconds: Int = TestTime.hangSeconds, _ condition: () throws -> Bool) async -> Bool {
        await TilawaTestSupport.eventually(seconds: seconds, condition)
    }

    func remove() {
        // A run on PostgreSQL: give the server its connections back.
        (runtime.database.engine as? PostgresStore)?.close()
        scratch.remove()
    }

    /// S1001's week-12 recording uploaded, encoded, and answered by C01 with an encoded reply;
    /// the submission's and the reply's ids.
    func answeredRecording(_ client: LiveClient) async throws -> (submission: String, feedback: String) {
        let upload = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                              headers: try await headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                              body: try Self.fixture("speech.opus"))
        let id = try #require(upload.json?["id"] as? String)
        #expect(await eventually { try runtime.database.submission(id: id)?.state == .awaitingFeedback })
        let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                             headers: try await headers(.coach, "C01", [.contentType: "audio/ogg"]),
                                             body: try Self.fixture("speech.opus"))
        let feedbackId = try #require(reply.json?["id"] as? String)
        #expect(await eventually { try runtime.database.feedback(id: feedbackId)?.state == .ready })
        return (id, feedbackId)
    }
}

extension TestResponse {
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
    }
}

extension Data {
    init(buffer: ByteBuffer) {
        self = Data(buffer.readableBytesView)
    }
}

/// An answer read by `LiveClient` or `TestDaemon.request`: status, headers and the whole body.
struct LiveAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
    }
}

extension LiveClient {
    /// `execute(uri:method:headers:body:)` on a connection of its own (`TestDaemon.request(port:)`).
    func judged(_ daemon: TestDaemon, uri: String, method: HTTPRequest.Method = .post, headers: HTTPFields,
                body: ByteBuffer) async throws -> LiveAnswer {
        try await daemon.request(port: port, method: method, uri, headers: headers, body: Data(buffer: body))
    }
}

extension TestDaemon {
    /// One request on a connection of its own to the live server on `port`, with a deadline
    /// that only guards a hang (`LiveClient.hangLimit`); how long the answer takes is no part
    /// of any test's verdict.
    func request(port: Int, method verb: HTTPRequest.Method, _ path: String,
                 headers: HTTPFields = [:], body: Data? = nil) async throws -> LiveAnswer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .init(rawValue: verb.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: LiveClient.hangLimit)
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let collected = verb == .head ? ByteBuffer() : try await response.body.collect(upTo: 64 << 20)
        return LiveAnswer(status: .init(code: Int(response.status.code)), headers: fields, body: collected)
    }
}
