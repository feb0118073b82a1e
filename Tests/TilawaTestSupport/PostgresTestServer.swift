import Foundation

/// A throw-away PostgreSQL 15 for the tests (Debian's, installed by `make deps-postgres`),
/// started by `scripts/pg-server.sh` in a scratch directory on a free loopback port as an
/// unprivileged user, trust authentication on loopback. `stop()` ends it and removes the folder.
public struct PostgresTestServer: Sendable {
    public let directory: ScratchDirectory
    /// `postgres://tilawa@127.0.0.1:PORT/tilawa`.
    public let url: String

    static let script = packageRoot.appendingPathComponent("scripts/pg-server.sh").path

    /// Whether this run asked for the PostgreSQL suites (`make test-postgres` sets
    /// `TILAWA_TEST_POSTGRES=1`; `make test` leaves them out rather than needing the server).
    public static var isRequested: Bool { ProcessInfo.processInfo.environment["TILAWA_TEST_POSTGRES"] == "1" }

    /// Starts a server; a start that fails is tried again in a new folder (the port is picked by
    /// binding port 0 and letting go, which another process may take first).
    public static func start() async throws -> PostgresTestServer {
        var failures: [String] = []
        for _ in 1...3 {
            let directory = try ScratchDirectory()
            let started = try await runProcess("/bin/bash", [script, "start", directory.path("pg")], environment: serverOwner, timeout: TestTime.hangInterval)
            if started.status == 0, let line = started.stdout.split(separator: "\n").first(where: { $0.hasPrefix("url=") }) {
                return PostgresTestServer(directory: directory, url: String(line.dropFirst("url=".count)))
            }
            failures.append("exit \(started.status): \(started.stderr)")
            _ = try? await runProcess("/bin/bash", [script, "stop", directory.path("pg")], timeout: TestTime.hangInterval)
            directory.remove()
        }
        throw S3TestServer.StartError.failed("scripts/pg-server.sh start failed three times — `make deps-postgres` installs PostgreSQL 15:\n"
                                             + failures.joined(separator: "\n"))
    }

    /// `pg_ctl restart -m fast` (`scripts/pg-server.sh restart`): every session is ended, as in
    /// an operator's restart or a failover, and the server comes back on the same port with the
    /// same data, so `url` stays valid. Returns once it takes connections again.
    public func restart() async throws {
        let restarted = try await runProcess("/bin/bash", [Self.script, "restart", directory.path("pg")], timeout: TestTime.hangInterval)
        guard restarted.status == 0 else {
            throw S3TestServer.StartError.failed("scripts/pg-server.sh restart failed (exit \(restarted.status)): \(restarted.stderr)")
        }
    }

    public func stop() async {
        _ = try? await runProcess("/bin/bash", [Self.script, "stop", directory.path("pg")], timeout: TestTime.hangInterval)
        directory.remove()
    }
}
