import Foundation
import HTTPTypes
import Hummingbird
import Testing
@testable import TilawaDaemon
import TilawaPostgres
import TilawaS3
import TilawaTestSupport

/// `GET /readyz` for a load balancer: out of rotation (503) only where that helps; an S3 store
/// that does not answer — every node's outage at once — leaves the node in, `degraded`, so
/// students get our 503 with `Retry-After` for uploads instead of the balancer's error, and the
/// rest of the API keeps working. The store here is real: S3's client pointed at a loopback
/// port nobody listens on, as a node sees a store that is down.
@Suite("Readiness: the database down is 503, the S3 store down is 200 degraded naming it")
struct ReadinessTests {
    @Test("The rule: what takes the node out (the first found), what leaves it serving degraded", arguments: [
        (true, "answers", "200 ok"),
        (true, "s3 down", "200 degraded artifact_store"),
        (true, "directory missing", "503 artifact_store_unavailable"),
        (false, "answers", "503 database_unavailable"),
        (false, "s3 down", "503 database_unavailable"),
        (false, "directory missing", "503 database_unavailable"),
    ])
    func rule(databaseAnswers: Bool, store: String, expected: String) {
        var readiness = Readiness()
        readiness.database(answers: databaseAnswers)
        readiness.disk(freeBytes: 1 << 40, minimum: 256 << 20)
        readiness.artifactStore(answers: store == "answers", description: "the store", remoteService: store == "s3 down")
        let degraded: String = readiness.degraded.map { " " + $0.check }.joined()
        let answer: String = readiness.blocking.map { "503 \($0.code)" } ?? "200 \(readiness.status)\(degraded)"
        #expect(answer == expected)
        // Whatever else failed, every failure is kept for the daemon's own report.
        var failed: [String] = databaseAnswers ? [] : ["database"]
        if store != "answers" { failed.append("artifact_store") }
        #expect(readiness.failures.map(\.check) == failed)
    }

    @Test("A disk below storage.min_free_bytes takes the node out; one that cannot be examined does not")
    func disk() {
        var full = Readiness()
        full.disk(freeBytes: 1_000, minimum: 1_001)
        #expect(full.blocking?.code == "storage_full" && full.blocking?.check == "disk_space")
        var unknown = Readiness()
        unknown.disk(freeBytes: nil, minimum: 1_001)
        #expect(unknown.isReady && unknown.status == "ok")
        #expect(Readiness.check(forCode: "storage_full") == "disk_space" && Readiness.check(forCode: "not_ready") == nil)
    }

    /// Key files for an S3 store at a loopback port where nothing listens.
    static func unreachableStore(_ keys: ScratchDirectory) throws -> (inout TilawaConfiguration) -> Void {
        let endpoint = URL(string: "http://127.0.0.1:\(try unusedPort())")
        try "AKIDREADINESS\n".write(toFile: keys.path("s3-access"), atomically: true, encoding: .utf8)
        try "readiness-secret\n".write(toFile: keys.path("s3-secret"), atomically: true, encoding: .utf8)
        let access = keys.path("s3-access"), secret = keys.path("s3-secret")
        return { configuration in
            configuration.artifacts.s3Location = S3Location(bucket: "tilawa", prefix: "readiness")
            configuration.artifacts.s3Endpoint = endpoint
            configuration.artifacts.s3AccessKeyFile = access
            configuration.artifacts.s3SecretKeyFile = secret
        }
    }

    @Test("""
        The S3 store down: /readyz 200 degraded naming artifact_store; an upload 503 artifact_store_unavailable with \
        Retry-After; the timeline served; tilawa status and /v1/status say CRITICAL artifact_store, the daemon ready; \
        /metrics has the check at 2
        """)
    func storeDown() async throws {
        let keys = try ScratchDirectory()
        defer { keys.remove() }
        let daemon = try await TestDaemon(configure: try Self.unreachableStore(keys))
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .ok, "\(String(buffer: ready.body))")
            let body = try #require(ready.json)
            #expect(body["status"] as? String == "degraded")
            let failing = try #require(body["failing_checks"] as? [[String: Any]])
            #expect(failing.count == 1 && failing.first?["check"] as? String == "artifact_store"
                        && failing.first?["code"] as? String == "artifact_store_unavailable", "\(failing)")
            #expect(body["node"] as? String == EncodeJobRunner.workerIdentity && (body["uptime_seconds"] as? Int) != nil)

            // What the node's staying in rotation gives a student: our answer, which the app acts on.
            let upload = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            #expect(upload.status == .serviceUnavailable && upload.json?["code"] as? String == "artifact_store_unavailable"
                        && upload.headers[.retryAfter] == "60", "\(upload.status) \(String(buffer: upload.body))")
            let timeline = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get,
                                                    headers: try await daemon.headers(.student, "S1001"))
            #expect(timeline.status == .ok, "what the database holds is served")

            // tilawa status through /readyz: the store is its own CRITICAL check, not "daemon not ready".
            let probe = DaemonProbe(url: "http://127.0.0.1:\(client.port)/readyz", timeout: .seconds(120))
            let report = await StatusReporter(configuration: daemon.runtime.configuration, expectRunning: true)
                .report(now: daemon.clock.now, probe: probe)
            #expect(report.daemon.up && report.daemon.ready, "\(report.daemon)")
            #expect(report.daemon.failingChecks?.map(\.check) == ["artifact_store"])
            #expect(report.check("daemon")?.state == .ok && report.check("daemon")?.message.contains("degraded: artifact_store") == true,
                    "\(report.check("daemon")?.message ?? "")")
            #expect(report.check("artifact_store")?.state == .critical, "\(report.check("artifact_store")?.message ?? "-")")
            #expect(report.check("artifact_store")?.message.contains("s3://tilawa/readiness") == true)
            #expect(report.state == .critical)

            // The daemon describing itself, and what Prometheus scrapes.
            let own = try await client.execute(uri: "/v1/status", method: .get, headers: try await daemon.headers(.ops, "ops"))
            let checks = try #require(own.json?["checks"] as? [[String: Any]])
            #expect(checks.first { $0["name"] as? String == "artifact_store" }?["state"] as? String == "critical", "\(checks)")
            #expect(checks.first { $0["name"] as? String == "daemon" }?["state"] as? String == "ok", "\(checks)")
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            let exported = metrics.matches(of: /tilawa_status_check\{check="artifact_store"\} ([0-9.]+)/).compactMap { Double($0.output.1) }
            #expect(exported == [2], "\(exported)")
        }
    }

    @Test("A local store that answers: 200 ok with no failing check; tilawa status says OK artifact_store")
    func storeAnswers() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .ok)
            #expect(ready.json?["status"] as? String == "ok" && (ready.json?["failing_checks"] as? [Any])?.isEmpty == true)
            let probe = DaemonProbe(url: "http://127.0.0.1:\(client.port)/readyz", timeout: .seconds(120))
            let report = await StatusReporter(configuration: daemon.runtime.configuration).report(now: daemon.clock.now, probe: probe)
            #expect(report.daemon.ready && report.daemon.failingChecks == [])
            #expect(report.check("artifact_store")?.state == .ok && report.check("daemon")?.message.hasPrefix("ready (") == true)
        }
    }

    @Test("The database down (PostgreSQL stopped) is 503 database_unavailable, also while the S3 store is down; tilawa status: not ready",
          .enabled(if: PostgresTestServer.isRequested), .heavy)
    func databaseDown() async throws {
        let server = try await PostgresTestServer.start()
        do {
            try await Self.expectRefusedWithoutDatabase(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private static func expectRefusedWithoutDatabase(_ server: PostgresTestServer) async throws {
        let keys = try ScratchDirectory()
        defer { keys.remove() }
        let store = try unreachableStore(keys)
        let daemon = try await TestDaemon { configuration in
            store(&configuration)
            configuration.database.postgres = PostgresLocation(url: server.url)
            configuration.database.maximumConnections = 3
        }
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let degraded = try await client.execute(uri: "/readyz", method: .get)
            #expect(degraded.status == .ok && degraded.json?["status"] as? String == "degraded")

            await server.stop()
            let down = try await client.execute(uri: "/readyz", method: .get)
            #expect(down.status == .serviceUnavailable, "\(String(buffer: down.body))")
            #expect(down.json?["code"] as? String == "database_unavailable")

            let daemonSection = await DaemonProbe(url: "http://127.0.0.1:\(client.port)/readyz", timeout: .seconds(120))
                .probe(expectRunning: true)
            #expect(daemonSection.up && !daemonSection.ready && daemonSection.error == "database_unavailable", "\(daemonSection)")
            #expect(daemonSection.failingChecks?.map(\.check) == ["database"])
        }
    }
}
