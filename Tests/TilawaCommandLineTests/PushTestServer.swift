import AsyncHTTPClient
import Foundation
import NIOCore
import TilawaTestSupport

/// A push service's stand-in (`Tests/push/<script>`: APNs, or FCM's token and send
/// endpoints), running until `stop()`: its requests as it logged them, its answers scriptable.
final class PushTestServer: Sendable {
    let process: SpawnedProcess
    let folder: String
    let port: Int

    init(script: String, folder: String, arguments: [String]) async throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let log = open(folder + "/server.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(log); close(null) }
        let process = try SpawnedProcess(
            [packageRoot.appendingPathComponent(".venv-test/bin/python").path, packageRoot.appendingPathComponent("Tests/push/" + script).path,
             "--dir", folder] + arguments,
            environment: ProcessInfo.processInfo.environment, directory: nil, stdin: null, stdout: log, stderr: log)
        self.process = process
        let deadline = ContinuousClock.now + TestTime.hangLimit
        var port: Int?
        while port == nil, ContinuousClock.now < deadline, process.isRunning {
            port = (try? String(contentsOfFile: folder + "/port", encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let port else {
            _ = process.signal(SIGKILL)
            _ = process.waitUntilExit()
            throw ServerDidNotStart(log: (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "")
        }
        self.port = port
    }

    struct ServerDidNotStart: Error {
        var log: String
    }

    /// The lines of one of its logs (`requests.jsonl`, FCM's `tokens.jsonl`).
    func log(_ name: String = "requests.jsonl") -> [[String: Any]] {
        ((try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    var requests: [[String: Any]] { log() }

    /// `answers` by key: a list of answers, or `["when": text, "answers": list]` for requests whose body has the text.
    func script(_ answers: [String: Any]) throws {
        try JSONSerialization.data(withJSONObject: answers).write(to: URL(fileURLWithPath: folder + "/script.json"))
    }

    /// Waits (bounded by `TestTime.hangLimit`) until `done` holds for its requests.
    func settled(_ done: @escaping @Sendable ([[String: Any]]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + TestTime.hangLimit
        while ContinuousClock.now < deadline {
            if done(requests) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// SIGTERM (the server exits at once on it), then SIGKILL if it is still there after a moment.
    func stop() {
        _ = process.signal(SIGTERM)
        for _ in 0..<50 where process.isRunning { usleep(100_000) }
        if process.isRunning { _ = process.signal(SIGKILL) }
        _ = process.waitUntilExit()
    }
}

/// A request with a bearer token to a daemon on loopback: (status, body).
func sendJSON(_ method: String, _ port: Int, _ path: String, token: String, json: String? = nil) async throws -> (Int, Data) {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
    request.method = .init(rawValue: method)
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    if let json {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
    }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(180))
    return (Int(response.status.code), Data(buffer: try await response.body.collect(upTo: 1 << 20)))
}

