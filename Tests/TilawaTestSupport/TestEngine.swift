import Foundation
import Testing

/// The storage engines a test runs on (DESIGN §13).
///
/// - Store tests take them as arguments: SQLite always, PostgreSQL too when the run asks for
///   it (`make test-postgres` sets `TILAWA_TEST_POSTGRES=1`).
/// - Daemon tests run on `current`: SQLite, or PostgreSQL for a whole run when
///   `TILAWA_TEST_ENGINE=postgres` is set as well, each daemon on a database of its own.
public enum TestEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    /// The engines of this run.
    public static var all: [TestEngine] { PostgresTestServer.isRequested ? [.sqlite, .postgres] : [.sqlite] }

    /// The engine of this run's daemons.
    public static var current: TestEngine {
        PostgresTestServer.isRequested && ProcessInfo.processInfo.environment["TILAWA_TEST_ENGINE"] == "postgres" ? .postgres : .sqlite
    }

    public var testDescription: String { rawValue }
}
