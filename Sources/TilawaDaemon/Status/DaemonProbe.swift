import AsyncHTTPClient
import Foundation
import NIOCore

/// Asks a daemon's `GET /readyz` whether it runs, within `defaultTimeout`.
///
/// The deadline is chosen on purpose: long enough that a daemon busy with a Friday burst (both
/// cores encoding) is not called down — it took over 1 s on a loaded 2-core machine — and short
/// enough that `tilawa status` finishes inside the 10 s a Nagios/NRPE check is given by default.
///
/// One `HTTPClient` per probe on NIO's shared event-loop group, shut down before `probe()`
/// returns. Connection attempts are not retried: a refused connection answers at once
/// that the daemon is down, instead of waiting out the deadline.
public struct DaemonProbe: Sendable {
    /// The address asked, e.g. `http://127.0.0.1:8080/readyz`.
    public let url: String
    /// The deadline of the whole exchange (connect, request, answer).
    public let timeout: Duration

    /// The deadline of a probe unless told otherwise: 5 s.
    public static let defaultTimeout = Duration.seconds(5)

    /// A probe of `url`.
    public init(url: String, timeout: Duration = DaemonProbe.defaultTimeout) {
        self.url = url
        self.timeout = timeout
    }

    /// A probe of the daemon `http` configures; a wildcard listen address is asked on loopback.
    public init(http: TilawaConfiguration.HTTP, timeout: Duration = DaemonProbe.defaultTimeout) {
        let host: String
        switch http.host {
        case "", "0.0.0.0": host = "127.0.0.1"
        case "::", "[::]": host = "[::1]"
        case let name where name.contains(":") && !name.hasPrefix("["): host = "[\(name)]"
        case let name: host = name
        }
        self.init(url: "http://\(host):\(http.port)/readyz", timeout: timeout)
    }

    /// What the daemon said, or why it said nothing. Never throws.
    public func probe(expectRunning: Bool) async -> StatusReport.Daemon {
        var down = StatusReport.Daemon(up: false, ready: false, expectedRunning: expectRunning, url: url)
        let milliseconds = Int64(timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .milliseconds(milliseconds), read: .milliseconds(milliseconds))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let outcome: Result<(status: UInt, body: ByteBuffer), any Error>
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await client.execute(request, timeout: .milliseconds(milliseconds))
            let body = try await response.body.collect(upTo: 64 * 1024)
            outcome = .success((response.status.code, body))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()

        switch outcome {
        case let .failure(error):
            down.error = Self.describe(error)
            return down
        case let .success((status, body)):
            let data = Data(body.readableBytesView)
            // 200 `ok`, or `degraded` naming what fails (an S3 store that does not answer): in
            // rotation either way; `tilawa status` judges the failing checks on their own.
            if status == 200, let ready = try? JSONDecoder.api.decode(ReadyAnswer.self, from: data), ["ok", "degraded"].contains(ready.status) {
                return StatusReport.Daemon(up: true, ready: true, expectedRunning: expectRunning, url: url,
                                           uptimeSeconds: ready.uptimeSeconds, startedAt: ready.startedAt, pid: ready.pid,
                                           failingChecks: ready.failingChecks ?? [])
            }
            if status == 503, let problem = try? JSONDecoder.api.decode(ProblemAnswer.self, from: data) {
                // A 503 stops at the first check that takes the node out, and names it by its code.
                let failing: [Readiness.Failure]? = problem.code.flatMap { code in
                    Readiness.check(forCode: code).map { [Readiness.Failure(check: $0, code: code, detail: problem.detail ?? code)] }
                }
                return StatusReport.Daemon(up: true, ready: false, expectedRunning: expectRunning, url: url,
                                           error: problem.code ?? problem.detail ?? "HTTP 503", failingChecks: failing)
            }
            down.error = "unexpected answer (HTTP \(status)): is another program listening there?"
            return down
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout { return "no answer within the deadline" }
        }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED { return "connection refused" }
        let text = "\(error)"
        if text.localizedCaseInsensitiveContains("refused") { return "connection refused" }
        return text
    }

    /// `GET /readyz` when ready (`failing_checks` is absent from a daemon older than it).
    struct ReadyAnswer: Decodable {
        var status: String
        var uptimeSeconds: Int?
        var startedAt: Date?
        var pid: Int?
        var failingChecks: [Readiness.Failure]?

        enum CodingKeys: String, CodingKey {
            case status, pid
            case uptimeSeconds = "uptime_seconds"
            case startedAt = "started_at"
            case failingChecks = "failing_checks"
        }
    }

    /// `GET /readyz` when not ready (problem+json).
    struct ProblemAnswer: Decodable {
        var code: String?
        var detail: String?
    }
}
