import GRDB

/// Where the store's transactions run: SQLite through GRDB (`SQLiteEngine`) or PostgreSQL
/// (`TilawaPostgres`). Each business operation of `AppDatabase` is one call.
///
/// Bodies may run more than once on an engine that retries a transaction a concurrent one
/// made impossible (PostgreSQL's serialization failures), so they only read and write
/// through their session.
public protocol StoreEngine: Sendable {
    /// A read-only transaction that sees one committed state.
    func read<T>(_ body: (SQLSession) throws -> T) throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T
    /// A write transaction, committed when `body` returns and rolled back when it throws.
    func write<T>(_ body: (SQLSession) throws -> T) throws -> T
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T
    /// A write transaction for an operation that checks something and then writes (claiming a
    /// job, sending a notice once): it holds off every other writer from its start on SQLite
    /// (`BEGIN IMMEDIATE`), and is SERIALIZABLE on PostgreSQL.
    func immediateWrite<T>(_ body: (SQLSession) throws -> T) throws -> T
    func immediateWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T
    /// A write transaction that waits for `lock` before it reads anything, for a rule that
    /// must stay exact however many nodes apply it (the attempt rule, DESIGN §13): `BEGIN
    /// IMMEDIATE` on SQLite; on PostgreSQL the lock first, then READ COMMITTED statements that
    /// each see what the lock's previous holder committed.
    func lockedWrite<T>(_ lock: StoreLock, _ body: (SQLSession) throws -> T) throws -> T
    /// `lockedWrite` from async code: suspends instead of blocking.
    func lockedWrite<T: Sendable>(_ lock: StoreLock, _ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T
    /// A write transaction that claims rows of a queue (a job) with `SQLSession.skipLocked`:
    /// READ COMMITTED on PostgreSQL, where `FOR UPDATE SKIP LOCKED` lets workers of every node
    /// claim different rows side by side instead of colliding and retrying; `immediateWrite`
    /// on SQLite, whose one writer at a time needs no row locks.
    func claimWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) throws -> T
    func claimWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T
    /// Which engine, for `status` and error messages — never for a decision: those ask the
    /// capabilities below (sql-kit's `SQLDialect` habit).
    var kind: StoreEngineKind { get }
    /// Whether other processes (other nodes) use this database at once: false on SQLite,
    /// whose state directory's lock makes this daemon its only process.
    var isShared: Bool { get }
    /// Whether the database is the state directory's own file, which `tilawa backup` copies
    /// consistently (SQLite's online backup); a server's is backed up with its own tools.
    var isStateDirectoryFile: Bool { get }
    /// Whether another process's commit is signalled at once (PostgreSQL's LISTEN), so that a
    /// poll for it is only the fallback.
    var signalsOtherProcesses: Bool { get }
    /// Transactions this process ran again since it started because they collided with
    /// another (PostgreSQL's serialization failures and deadlocks; never on SQLite, whose one
    /// writer waits instead): `GET /metrics`' `tilawa_database_collisions_total`.
    var collisions: Int { get }
    /// Takes the process-wide duty `name` (one drop-folder watcher for every node), or nil
    /// while another process holds it. The claim lasts until released or until this
    /// process's hold on the database ends.
    func claimDuty(_ name: String) async throws -> (any DutyClaim)?
    /// Calls `receive` with every signal sent on `signals` by any node (this one included),
    /// until the calling task is cancelled; `receive(nil, "")` when signals may have been
    /// missed (listening began or began again), so the receiver looks for work as if woken.
    /// On SQLite it only waits: one process, which wakes its own workers.
    func listen(to signals: [StoreSignal], receive: @escaping @Sendable (StoreSignal?, String) -> Void) async
    /// Sends `payload` on `signal` to every listening node (nothing on SQLite).
    func send(_ signal: StoreSignal, payload: String) async throws
}

/// What nodes wake each other for (PostgreSQL's LISTEN/NOTIFY channels).
public enum StoreSignal: String, Sendable, CaseIterable {
    /// A job was queued (new, or given back): workers claim it.
    case jobs = "tilawa_jobs"
    /// An event was recorded: the webhook notifier sends it.
    case outbox = "tilawa_outbox"
    /// The payload is an upload id: the node appending to it lets go (its client reconnected elsewhere).
    case uploadRelease = "tilawa_upload_release"
}

/// A duty one process at a time performs. Ask `isHeld()` before each act of the duty: a
/// process whose connection to the database dropped has lost it, and another may have it.
public protocol DutyClaim: Sendable {
    func isHeld() async -> Bool
    func release() async
}

/// The two engines `database.url` chooses between.
public enum StoreEngineKind: String, Sendable {
    case sqlite
    case postgres
}

/// SQLite through GRDB: a `DatabasePool` (WAL) in production, a `DatabaseQueue` in some tests.
public struct SQLiteEngine: StoreEngine {
    public let writer: any DatabaseWriter

    public init(_ writer: any DatabaseWriter) {
        self.writer = writer
    }

    public var kind: StoreEngineKind { .sqlite }
    public var isShared: Bool { false }
    public var isStateDirectoryFile: Bool { true }
    public var signalsOtherProcesses: Bool { false }
    public var collisions: Int { 0 }

    /// Always granted: one daemon at a time opens a state directory (its lock), so the
    /// process already holds every duty of its SQLite database.
    public func claimDuty(_ name: String) async throws -> (any DutyClaim)? {
        SoleProcessDuty()
    }

    public func listen(to signals: [StoreSignal], receive: @escaping @Sendable (StoreSignal?, String) -> Void) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3_600))
        }
    }

    public func send(_ signal: StoreSignal, payload: String) async throws {}

    public func claimWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) throws -> T {
        try immediateWrite(body)
    }

    public func claimWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await immediateWrite(body)
    }

    public func read<T>(_ body: (SQLSession) throws -> T) throws -> T {
        try writer.read { db in try body(SQLSession(db)) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await writer.read { db in try body(SQLSession(db)) }
    }

    public func write<T>(_ body: (SQLSession) throws -> T) throws -> T {
        try writer.write { db in try body(SQLSession(db)) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await writer.write { db in try body(SQLSession(db)) }
    }

    public func immediateWrite<T>(_ body: (SQLSession) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in try Self.immediateTransaction(db, body) }
    }

    public func lockedWrite<T>(_ lock: StoreLock, _ body: (SQLSession) throws -> T) throws -> T {
        try immediateWrite(body)
    }

    public func immediateWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await writer.writeWithoutTransaction { db in try Self.immediateTransaction(db, body) }
    }

    public func lockedWrite<T: Sendable>(_ lock: StoreLock, _ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await immediateWrite(body)
    }

    /// `body` in one `BEGIN IMMEDIATE` transaction, committed, and its result.
    private static func immediateTransaction<T>(_ db: Database, _ body: (SQLSession) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            result = try body(SQLSession(db))
            return .commit
        }
        // inTransaction only returns after committing the block's result.
        guard let result else { throw StoreError.internalInconsistency("transaction produced no result") }
        return result
    }
}

/// A duty of the only process that uses the database.
struct SoleProcessDuty: DutyClaim {
    func isHeld() async -> Bool { true }
    func release() async {}
}
