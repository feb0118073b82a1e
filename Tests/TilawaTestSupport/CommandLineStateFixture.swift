import Foundation
import GRDB
import Testing

/// A scratch state directory with the sample programme imported, driven through the real
/// `tilawa` binary; the clock of each command is pinned with faketime.
public struct CommandLineStateFixture: Sendable {
    public let scratch: ScratchDirectory

    public var stateDirectory: String { scratch.path("var") }

    public init(importSamples: Bool = true) async throws {
        scratch = try ScratchDirectory()
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
        var env = environment
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

    /// Reads the state database (a separate connection, as another process would).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: stateDirectory + "/tilawa.sqlite")
        return try queue.read(body)
    }

    public func remove() { scratch.remove() }

    enum FixtureError: Error { case setup(String) }
}
