import Foundation
import GRDB

/// The application's database: every read and every business operation goes through here.
///
/// Wraps `any DatabaseWriter`: a `DatabasePool` (WAL) on disk in production, and in tests
/// either the same on a temporary file or a `DatabaseQueue`. Each business operation is
/// one transaction; those that check a rule and then write (admission, claiming a job)
/// take the write lock up front (`BEGIN IMMEDIATE`) so two processes cannot both pass the
/// check.
public struct AppDatabase: Sendable {
    /// The connection(s), for this type's own operations. Not for product code, which goes
    /// through the named operations; tests reach it through the `Testing` SPI
    /// (`@_spi(Testing) import TilawaStore`) to look at rows directly.
    @_spi(Testing) public let writer: any DatabaseWriter

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
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    private init(unmigrated writer: any DatabaseWriter) {
        self.writer = writer
    }

    static func configuration(busyTimeout: TimeInterval) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.foreignKeysEnabled = true
        config.label = "tilawa"
        return config
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction and returns its result; rolled back
    /// when it throws.
    func immediateWrite<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in try Self.immediateTransaction(db, body) }
    }

    /// `immediateWrite` from async code: suspends on GRDB's async writer instead of blocking.
    func immediateWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.writeWithoutTransaction { db in try Self.immediateTransaction(db, body) }
    }

    /// `body` in one `BEGIN IMMEDIATE` transaction, committed, and its result.
    private static func immediateTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            result = try body(db)
            return .commit
        }
        // inTransaction only returns after committing the block's result.
        guard let result else { throw StoreError.internalInconsistency("transaction produced no result") }
        return result
    }
}
