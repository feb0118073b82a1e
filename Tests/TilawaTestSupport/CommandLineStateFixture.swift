import Foundation
import GRDB
import Testing

/// A scratch state directory with the sample programme imported, driven through the real
/// `tilawa` binary; the clock of each command is pinned with faketime.
///
/// With `TILAWA_TEST_ENGINE=postgres` (and `TILAWA_TEST_POSTGRES=1`) the state's database is a
/// database of its own on the test process's PostgreSQL server: every command (and every daemon
/// started with `environment`) is given its URL.
public struct CommandLineStateFixture: Sendable {
    public let scratch: ScratchDirectory
    /// The PostgreSQL database of this state, or nil on SQLite (`<state>/tilawa.sqlite`).
    public let databaseURL: String?

    public var stateDirectory: String { scratch.path("var") }

    /// What a process on this state needs in its environment besides the state directory.
    public var environment: [String: String] { databaseURL.map { ["TILAWA_DATABASE_URL": $0] } ?? [:] }

    /// - Parameter engine: Where the state's database lives (the run's engine unless a test
    ///   needs one: the node soak is PostgreSQL's).
    public init(importSamples: Bool = true, engine: TestEngine = .current) async throws {
        try await self.init(importSamples: importSamples, databaseURL: engine == .postgres ? SharedPostgres.database() : nil)
    }

    /// A state on the database at `databaseURL` (nil: SQLite in the state directory): a
    /// PostgreSQL server of the test's own (`PostgresTestServer`), which it may restart or stop
    /// under the daemons, as it must never do to the run's shared one.
    public init(importSamples: Bool = true, databaseURL: String?) async throws {
        scratch = try ScratchDirectory()
        self.databaseURL = databaseURL
        if importSamples {
            let result = try await run(["roster", "import", Self.sample("program.yaml"), Self.sample("students.csv")])
            guard result.status == 0 else { throw FixtureError.setup(result.stderr) }
        }
    }

    public static func sample(_ name: String) -> String { packageRoot.appendingPathComponent("config/\(name)").path }
    public static func fixture(_ name: String) -> String { fixturesDirectory.appendingPathComponent(name).path }

    /// Runs `tilawa` in the scratch folder against this state directory, with its clock
    /// stopped at `time` (UTC, `YYYY-MM-DD HH:MM:SS`) when given.
    ///
    /// libfaketime is preloaded directly rather than through the `faketime` wrapper, so a
    /// signal that kills `tilawa` is seen by the test, not swallowed by a shell in between.
    public func run(_ arguments: [String], at time: String? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        var env = self.environment.merging(environment) { _, explicit in explicit }
        env["TILAWA_STATE_DIR"] = stateDirectory
        env["TZ"] = "UTC"
        if let time {
            env["LD_PRELOAD"] = Self.libfaketime
            env["FAKETIME"] = time
            env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        }
        return try await runProcess(tilawaBinary, arguments, environment: env, directory: scratch.path)
    }

    public static let libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

    /// Reads the SQLite state database with GRDB (a separate connection, as another process
    /// would), for the tests of SQLite's own files; `read` (the CLI tests' extension) reads either engine.
    public func readSQLite<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: stateDirectory + "/tilawa.sqlite")
        return try queue.read(body)
    }

    public func remove() { scratch.remove() }

    enum FixtureError: Error { case setup(String) }
}
