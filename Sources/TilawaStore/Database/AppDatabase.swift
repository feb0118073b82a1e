import Foundation
import GRDB

/// The application's database: every read and every business operation goes through here.
///
/// Runs on a `StoreEngine`: SQLite (`SQLiteEngine`: a `DatabasePool` (WAL) on disk in
/// production, and in tests the same on a temporary file or a `DatabaseQueue`) or
/// PostgreSQL. Each business operation is one transaction; those that check a rule and
/// then write (admission, claiming a job) take the write lock up front (`BEGIN IMMEDIATE`
/// on SQLite, the student's lock on PostgreSQL) so two processes cannot both pass the check.
public struct AppDatabase: Sendable {
    /// Where the transactions run.
    public let engine: any StoreEngine

    /// The SQLite connection(s), for tests through the `Testing` SPI (`@_spi(Testing) import
    /// TilawaStore`) to look at rows directly. Not for product code, which goes through the
    /// named operations (and `sqliteWriter()` for what exists only on SQLite).
    @_spi(Testing) public var writer: any DatabaseWriter {
        guard let sqlite = engine as? SQLiteEngine else { preconditionFailure("raw SQLite access to a \(engine.kind) store") }
        return sqlite.writer
    }

    /// The SQLite connection(s), for what exists only on SQLite (its backups); an error on
    /// another engine.
    func sqliteWriter() throws -> any DatabaseWriter {
        guard let sqlite = engine as? SQLiteEngine else { throw StoreError.unsupported("this needs SQLite; the database is \(engine.kind.rawValue)") }
        return sqlite.writer
    }

    /// Opens (creating if needed) the database at `path` and migrates it.
    ///
    /// Writers wait up to `busyTimeout` for each other rather than failing with
    /// "database is locked": several `tilawa ingest` processes and the daemon share one file.
    public static func open(path: String, busyTimeout: TimeInterval = 30) throws -> AppDatabase {
        let pool = try DatabasePool(path: path, configuration: configuration(busyTimeout: busyTimeout))
        return try AppDatabase(pool)
    }

    /// Opens the database at `path` read-only, without migrating (for `tilawa status`).
    public static func openReadOnly(path: String) throws -> AppDatabase {
        var config = configuration(busyTimeout: 5)
        config.readonly = true
        return AppDatabase(unmigrated: try DatabasePool(path: path, configuration: config))
    }

    /// Wraps `writer` and applies the migrations.
    public init(_ writer: any DatabaseWriter) throws {
        try Self.migrator.migrate(writer)
        self.init(unmigrated: writer)
    }

    private init(unmigrated writer: any DatabaseWriter) {
        self.engine = SQLiteEngine(writer)
    }

    /// The store on `engine`, whose schema is already current (the PostgreSQL engine migrates
    /// itself: `PostgresStore.migrate()`).
    public init(engine: any StoreEngine) {
        self.engine = engine
    }

    static func configuration(busyTimeout: TimeInterval) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.foreignKeysEnabled = true
        config.label = "tilawa"
        return config
    }

    /// Takes the process-wide duty `name`, or nil while another process (node) holds it
    /// (see `StoreEngine.claimDuty`).
    public func claimDuty(_ name: String) async throws -> (any DutyClaim)? {
        try await engine.claimDuty(name)
    }

    /// Runs `body` in one transaction that excludes every other writer from its start (see
    /// `StoreEngine.immediateWrite`) and returns its result; rolled back when it throws.
    func immediateWrite<T: Sendable>(_ body: @Sendable (SQLSession) throws -> T) throws -> T {
        try engine.immediateWrite(body)
    }

    /// `immediateWrite` from async code: suspends instead of blocking.
    func immediateWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await engine.immediateWrite(body)
    }
}
