import Foundation
import Synchronization

/// One throw-away PostgreSQL for a whole test process, for suites parameterised over both
/// storage engines: started the first time a test asks for a database, stopped when the
/// process exits. Each test gets a database of its own (`database()`), so tests stay as
/// independent as their SQLite files.
public enum SharedPostgres {
    private static let server = Mutex<Result<(directory: String, port: Int), StartError>?>(nil)
    private static let databases = Atomic<Int>(0)

    /// Why the shared server is not there; every test that asks reports it.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The URL of a new, empty database: `postgres://tilawa@127.0.0.1:PORT/tN`.
    public static func database() throws -> String {
        let (directory, port) = try started()
        let name = "t\(databases.add(1, ordering: .relaxed).newValue)"
        let created = run(["/usr/lib/postgresql/15/bin/createdb", "-h", "127.0.0.1", "-p", "\(port)", "-U", "tilawa", name])
        guard created.status == 0 else { throw StartError(description: "createdb \(name) failed: \(created.output) (\(directory))") }
        return "postgres://tilawa@127.0.0.1:\(port)/\(name)"
    }

    private static func started() throws -> (directory: String, port: Int) {
        try server.withLock { state in
            if state == nil { state = start() }
            return try state!.get()
        }
    }

    private static func start() -> Result<(directory: String, port: Int), StartError> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-pg-\(UUID().uuidString)").path
        let script = packageRoot.appendingPathComponent("scripts/pg-server.sh").path
        let started = run(["/bin/bash", script, "start", directory + "/pg"], environment: serverOwner)
        guard started.status == 0, let port = try? String(contentsOfFile: directory + "/pg/port", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines), let number = Int(port) else {
            return .failure(StartError(description: "scripts/pg-server.sh start failed (make deps-postgres installs PostgreSQL 15): \(started.output)"))
        }
        stopDirectory.withLock { $0 = directory }
        atexit {
            guard let directory = SharedPostgres.stopDirectory.withLock({ $0 }) else { return }
            _ = SharedPostgres.run(["/bin/bash", packageRoot.appendingPathComponent("scripts/pg-server.sh").path, "stop", directory + "/pg"])
            try? FileManager.default.removeItem(atPath: directory)
        }
        return .success((directory, number))
    }

    private static let stopDirectory = Mutex<String?>(nil)

    /// Runs a command to its end (two minutes at most); its exit status and its output.
    private static func run(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, output: String) {
        do {
            let result = try runProcessBlocking(arguments[0], Array(arguments.dropFirst()), environment: environment, timeout: TestTime.hangInterval)
            return (result.status, result.stdout + result.stderr)
        } catch {
            return (-1, "\(error)")
        }
    }
}
