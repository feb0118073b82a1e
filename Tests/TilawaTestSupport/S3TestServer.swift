import Foundation
import Synchronization

/// A real S3 implementation for the tests: OpenStack Swift's proxy with its s3api and tempauth
/// middlewares (Debian's packages, installed by `make deps-s3`), started by
/// `scripts/s3-server.sh` in a scratch directory on free loopback ports. It checks every
/// request's signature, as a real store does.
///
/// Tests share one per test process (`shared()`), each in buckets of its own
/// (`uniqueBucket(_:)`): five Python servers and a memcached are the heaviest fixture of the
/// suite. A test that needs a server to itself (to stop it under a daemon) starts one with
/// `start()` and ends it with `stop()`.
public struct S3TestServer: Sendable {
    public let directory: ScratchDirectory
    public let endpoint: URL
    public let accessKey: String
    public let secretKey: String
    public let region: String
    /// The run's shared server (`shared()`): `stop()` leaves it running for the other tests.
    public private(set) var isShared = false

    static let script = packageRoot.appendingPathComponent("scripts/s3-server.sh").path

    /// Starts a server; a start that fails is tried again twice in a new folder (the script
    /// picks free ports by binding port 0 and letting go, which a test starting a server of
    /// its own at the same moment can take first), and the error carries the servers' logs.
    /// The test process's server, started by the first test that asks; stopped when the process
    /// exits (and by the script's watcher if it is killed).
    public static func shared() async throws -> S3TestServer {
        try await sharedServer.server()
    }

    /// A bucket name no other test of this process uses: `stem-N`.
    public static func uniqueBucket(_ stem: String) -> String {
        "\(stem)-\(buckets.add(1, ordering: .relaxed).newValue)"
    }

    private static let buckets = Atomic<Int>(0)
    private static let sharedServer = SharedServer()

    private actor SharedServer {
        private var started: Task<S3TestServer, any Error>?

        func server() async throws -> S3TestServer {
            if let started {
                let server = try await started.value
                // A shared server that died under the run is reported with what it left, never retried blindly.
                if let death = server.deathReport() { throw StartError.failed(death) }
                return server
            }
            let task = Task {
                var server = try await S3TestServer.startAlone()
                server.isShared = true
                stopAtExit.withLock { $0 = server.directory.path("s3") }
                atexit {
                    guard let folder = S3TestServer.stopAtExit.withLock({ $0 }) else { return }
                    _ = try? runProcessBlocking("/bin/bash", [S3TestServer.script, "stop", folder], timeout: TestTime.hangInterval)
                    try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent)
                }
                return server
            }
            started = task
            return try await task.value
        }
    }

    private static let stopAtExit = Mutex<String?>(nil)

    /// A server of the caller's own, one at a time in the whole run; `stop()` ends it.
    public static func start() async throws -> S3TestServer {
        await gate.acquire()
        do {
            return try await startAlone()
        } catch {
            await gate.release()
            throw error
        }
    }

    /// One server at a time in the whole test run: five Python servers starting together on a
    /// 2-core box take the CPU every live test server of the other suites needs to answer.
    static let gate = Gate()

    actor Gate {
        private var busy = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            if !busy { busy = true; return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
    }

    private static func startAlone() async throws -> S3TestServer {
        var failures: [String] = []
        for _ in 1...3 {
            let directory = try ScratchDirectory()
            let started = try await runProcess("/bin/bash", [script, "start", directory.path("s3")], environment: serverOwner, timeout: TestTime.hangInterval)
            if started.status == 0 { return try server(started, in: directory) }
            var logs = ""
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path("s3/log"))) ?? [] {
                let text = (try? String(contentsOfFile: directory.path("s3/log/" + name), encoding: .utf8)) ?? ""
                logs += "\n\(name): " + text.split(separator: "\n").suffix(5).joined(separator: "\n")
            }
            failures.append("exit \(started.status): \(started.stderr)\(logs)")
            _ = try? await runProcess("/bin/bash", [script, "stop", directory.path("s3")], timeout: TestTime.hangInterval)
            directory.remove()
        }
        throw StartError.failed("scripts/s3-server.sh start failed three times — `make deps-s3` installs the server:\n"
                                + failures.joined(separator: "\n"))
    }

    private static func server(_ started: ProcessResult, in directory: ScratchDirectory) throws -> S3TestServer {
        var values: [String: String] = [:]
        for line in started.stdout.split(separator: "\n") {
            let halves = line.split(separator: "=", maxSplits: 1)
            if halves.count == 2 { values[String(halves[0])] = String(halves[1]) }
        }
        guard let endpoint = values["endpoint"].flatMap(URL.init(string:)), let accessKey = values["access_key"],
              let secretKey = values["secret_key"] else {
            throw StartError.failed("scripts/s3-server.sh printed no endpoint and keys: \(started.stdout)")
        }
        return S3TestServer(directory: directory, endpoint: endpoint, accessKey: accessKey, secretKey: secretKey,
                            region: values["region"] ?? "us-east-1")
    }

    /// Nil while every process of the server runs and its proxy takes connections; otherwise
    /// which ones are gone and the last lines of every log, for the test that finds it so.
    func deathReport() -> String? {
        let folder = directory.path("s3")
        let records = ((try? String(contentsOfFile: folder + "/pids", encoding: .utf8)) ?? "").split(separator: "\n")
        let gone = records.compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, let pid = Int32(fields[1]) else { return nil }
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            let started = stat.split(separator: ")").last?.split(separator: " ").dropFirst(19).first.map(String.init)
            return started == String(fields[2]) ? nil : String(fields[0])
        }
        if records.isEmpty { return "the shared S3 server's record of its processes (\(folder)/pids) is gone:\n" + logTails(folder) }
        guard gone.isEmpty else { return "the shared S3 server lost \(gone.joined(separator: ", ")) during the run:\n" + logTails(folder) }
        return nil
    }

    private func logTails(_ folder: String) -> String {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/log")) ?? []).sorted().map { name in
            let text = (try? String(contentsOfFile: folder + "/log/" + name, encoding: .utf8)) ?? ""
            return name + ": " + text.split(separator: "\n").suffix(8).joined(separator: "\n  ")
        }.joined(separator: "\n")
    }

    /// Ends a server of `start()` and removes its folder. The shared server is the whole run's
    /// (stopped at exit): for it this does nothing — a test once stopped it under the others.
    public func stop() async {
        guard !isShared else { return }
        _ = try? await runProcess("/bin/bash", [Self.script, "stop", directory.path("s3")], timeout: TestTime.hangInterval)
        directory.remove()
        await Self.gate.release()
    }

    public enum StartError: Error, CustomStringConvertible {
        case failed(String)
        public var description: String { if case .failed(let text) = self { return text }; return "" }
    }
}

extension S3TestServer {
    /// Stops every process of this server (an outage of the store), keeping its folder: the
    /// objects, the configuration and the ports, so that `resume()` brings the same store back
    /// at the same endpoint and the nodes' configuration stays valid. A server of `start()`
    /// only; `stop()` ends a paused server as well as a running one.
    public func pause() async throws {
        guard !isShared else { throw StartError.failed("the shared S3 server serves the whole run: start() one of your own to stop it") }
        let stopped = try await runProcess("/bin/bash", [Self.script, "stop", directory.path("s3")], timeout: TestTime.hangInterval)
        guard stopped.status == 0 else {
            throw StartError.failed("scripts/s3-server.sh stop failed (exit \(stopped.status)): \(stopped.stderr)")
        }
    }

    /// Starts the servers `pause()` stopped, on the same ports with the same data and keys;
    /// returns once they all answer. When they do not, the script has stopped what it started
    /// and this throws with the servers' log tails.
    public func resume() async throws {
        guard !isShared else { throw StartError.failed("the shared S3 server serves the whole run: start() one of your own to stop it") }
        let resumed = try await runProcess("/bin/bash", [Self.script, "resume", directory.path("s3")], timeout: TestTime.hangInterval)
        guard resumed.status == 0 else {
            throw StartError.failed("scripts/s3-server.sh resume failed (exit \(resumed.status)): \(resumed.stderr)\n"
                                    + logTails(directory.path("s3")))
        }
    }

    /// What every node of one installation shares, written under `secrets`: this store's key
    /// files and one token key (`auth.jwt_key_file`'s default is per state directory). Returns
    /// the environment naming them, with artifacts at `s3://bucket/prefix`.
    public func nodeEnvironment(secrets: String, bucket: String, prefix: String) throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true)
        try (accessKey + "\n").write(toFile: secrets + "/s3-access", atomically: true, encoding: .utf8)
        try (secretKey + "\n").write(toFile: secrets + "/s3-secret", atomically: true, encoding: .utf8)
        // 32 random bytes as 64 hex characters: raw bytes would end in "\n" one time in 256,
        // and a key file's final newline is not part of the key (31 bytes, refused at start).
        try ((0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() + "\n")
            .write(toFile: secrets + "/jwt.key", atomically: true, encoding: .utf8)
        return [
            "TILAWA_ARTIFACTS_URL": "s3://\(bucket)/\(prefix)", "TILAWA_S3_ENDPOINT": endpoint.absoluteString,
            "TILAWA_S3_ACCESS_KEY_FILE": secrets + "/s3-access", "TILAWA_S3_SECRET_KEY_FILE": secrets + "/s3-secret",
            "TILAWA_AUTH_JWT_KEY_FILE": secrets + "/jwt.key",
        ]
    }
}
