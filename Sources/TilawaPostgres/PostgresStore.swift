import Dispatch
import GRDB
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import TilawaStore

/// PostgreSQL as the store's engine (`database.url: postgres://…`, DESIGN §13): the store's
/// transactions on a bounded set of connections, each transaction on a thread of its own.
///
/// Isolation:
/// - `write` and `immediateWrite` are SERIALIZABLE and tried again (for up to `retryBudget`,
///   with growing random waits) when PostgreSQL reports a serialization failure or a
///   deadlock, then fail as `StoreError.busy`; so every operation that was
///   written for SQLite's one-writer-at-a-time keeps its meaning while writers of unrelated
///   rows run side by side.
/// - `lockedWrite` (an admission) waits for its `StoreLock` *first* and runs READ COMMITTED:
///   every later statement reads what the lock's previous holder committed. A snapshot taken
///   before the lock (REPEATABLE READ, SERIALIZABLE) would count stale rows, and ten uploads
///   at once would end in retries rather than in order (`AttemptLockTests`).
/// - `read` is REPEATABLE READ, READ ONLY: one committed state, as SQLite's readers see.
public final class PostgresStore: StoreEngine {
    public var kind: StoreEngineKind { .postgres }
    public var isShared: Bool { true }
    public var isStateDirectoryFile: Bool { false }
    public var signalsOtherProcesses: Bool { true }
    public var collisions: Int { collisionCount.load(ordering: .relaxed) }
    private let collisionCount = Atomic<Int>(0)

    let connections: PostgresConnectionPool
    let threads: NIOThreadPool
    let catalog = PostgresCatalog()
    let logger: Logger
    let answerTimeout: TimeAmount
    let dutyIdleTimeout: Duration
    let retryBudget: Duration

    /// Connects (lazily) to `location` with at most `maximumConnections` connections. Call
    /// `migrate()` before the first operation and `shutdown()` at the end.
    ///
    /// - `idleInTransactionTimeout`: the server ends a session of ours that sits inside a
    ///   transaction this long without a statement — a node stopped (SIGSTOP, a frozen VM) or cut
    ///   off mid-transaction — so that the student's lock it held does not stop every other
    ///   node's admissions for that student until it comes back. Our transactions run their
    ///   statements back to back; none waits this long between two.
    /// - `answerTimeout`: the longest this node waits for one statement's answer, longer than
    ///   a lock wait can last given the first (see `PostgresTransaction.answer(to:)`).
    /// - `dutyIdleTimeout`: how long a duty's holder may go without asking before the server
    ///   ends its session and another node may take the duty (`claimDuty(_:)`).
    /// - `retryBudget`: how long a transaction that collides with others (serialization
    ///   failure, deadlock) is tried again before it fails as `StoreError.busy`. Ten tries used
    ///   to be the bound: thirty requests racing on one row on a loaded box ran out of them.
    public init(location: PostgresLocation, password: String?, maximumConnections: Int = 8,
                idleInTransactionTimeout: Duration = .seconds(60), answerTimeout: Duration = .seconds(120),
                dutyIdleTimeout: Duration = .seconds(60), retryBudget: Duration = .seconds(10), logger: Logger) {
        self.dutyIdleTimeout = dutyIdleTimeout
        self.retryBudget = retryBudget
        connections = PostgresConnectionPool(location: location, password: password, size: maximumConnections,
                                             idleInTransactionTimeout: idleInTransactionTimeout, logger: logger)
        self.answerTimeout = TimeAmount(answerTimeout)
        threads = NIOThreadPool(numberOfThreads: maximumConnections)
        threads.start()
        self.logger = logger
    }

    /// Closes the connections and stops the threads.
    public func shutdown() async {
        try? await threads.shutdownGracefully()
        connections.closeAll()
    }

    /// `shutdown()` from synchronous code (a command's end, a test's).
    public func close() {
        try? threads.syncShutdownGracefully()
        connections.closeAll()
    }

    public func read<T>(_ body: (SQLSession) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", retrying: false, body)
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await threads.runIfActive { try self.read(body) }
    }

    public func write<T>(_ body: (SQLSession) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", retrying: true, body)
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await threads.runIfActive { try self.write(body) }
    }

    public func immediateWrite<T>(_ body: (SQLSession) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", retrying: true, body)
    }

    public func lockedWrite<T>(_ lock: StoreLock, _ body: (SQLSession) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL READ COMMITTED", retrying: true) { session in
            try session.acquire(lock)
            return try body(session)
        }
    }

    public func immediateWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await threads.runIfActive { try self.immediateWrite(body) }
    }

    public func lockedWrite<T: Sendable>(_ lock: StoreLock, _ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await threads.runIfActive { try self.lockedWrite(lock, body) }
    }

    public func claimWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL READ COMMITTED", retrying: true, body)
    }

    public func claimWrite<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await threads.runIfActive { try self.claimWrite(body) }
    }

    /// Runs `body` between `begin` and COMMIT on one connection; rolls back when it throws.
    /// With `retrying`, a collision with another transaction runs it again after a random
    /// wait (up to 2 ms × 2^attempt, at most 32 ms: the colliders spread out rather than
    /// collide again in step, and a minute tick or an answer is not held up much longer than
    /// the collisions last), for up to `retryBudget`; then `StoreError.busy`.
    ///
    /// A session found ended at BEGIN (a pooled connection the server closed while it sat
    /// idle: a restart, `pg_terminate_backend`) ran nothing: the transaction starts again on
    /// another connection, a new one once the stale ones are used up. A session that ended
    /// later (`PostgresFault`) is `StoreError.unavailable`, the daemon's 503 with `Retry-After`,
    /// and not run again here: the caller asks again (a transaction's work is not done twice
    /// after a stall the server ended it for); ended during COMMIT, it may or may not have
    /// committed, which the error says.
    private func transaction<T>(_ begin: String, retrying: Bool, _ body: (SQLSession) throws -> T) throws -> T {
        var attempt = 1
        var staleConnections = 0
        let start = ContinuousClock.now
        while true {
            let connection = try connections.acquire()
            let transaction = PostgresTransaction(connection: connection, catalog: catalog, logger: logger, answerTimeout: answerTimeout)
            var begun = false
            var committing = false
            do {
                try transaction.run(begin, [])
                begun = true
                let result = try body(SQLSession(backend: transaction))
                committing = true
                try transaction.run("COMMIT", [])
                connections.release(connection)
                return result
            } catch {
                // Read before the ROLLBACK, which finds a timed-out connection closed too.
                let sessionEnded = transaction.sessionEnded
                let rolledBack = !sessionEnded && (try? transaction.run("ROLLBACK", [])) != nil
                connections.release(connection, healthy: rolledBack)
                if sessionEnded {
                    // Bounded: at most every pooled connection is stale, and then one new one fails.
                    guard begun || staleConnections > connections.size else {
                        staleConnections += 1
                        continue
                    }
                    throw Self.sessionEnded(error, committing: committing)
                }
                guard retrying, Self.isRetryable(error) else { throw error }
                collisionCount.add(1, ordering: .relaxed)
                let wait = Duration.microseconds(Int.random(in: 500...(2_000 << min(attempt, 4))))
                guard ContinuousClock.now - start + wait < retryBudget else {
                    throw StoreError.busy("PostgreSQL refused this transaction \(attempt) times in \(ContinuousClock.now - start) "
                                          + "for colliding with others; the last: \(error)")
                }
                usleep(UInt32(wait / .microseconds(1)))
                attempt += 1
            }
        }
    }

    /// A transaction whose session ended under it, as `StoreError.unavailable` whatever its
    /// body made of the statement's error.
    static func sessionEnded(_ error: any Error, committing: Bool) -> StoreError {
        if committing {
            return .unavailable("the PostgreSQL session ended during COMMIT, which may or may not have taken effect: \(error)")
        }
        if let error = error as? StoreError, case .unavailable = error { return error }
        return .unavailable("the PostgreSQL session ended under the transaction: \(error)")
    }

    /// Serialization failure (40001) and deadlock (40P01): the transaction can run again.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? PostgresStatementError else { return false }
        return error.sqlState == "40001" || error.sqlState == "40P01"
    }

    /// Applies the migrations this database lacks, one transaction each, one node at a time.
    public func migrate() throws {
        let connection = try connections.acquire()
        defer { connections.release(connection) }
        // No deadline: a migration of a large table takes as long as it takes.
        let transaction = PostgresTransaction(connection: connection, catalog: catalog, logger: logger, answerTimeout: nil)
        for (name, sql) in PostgresSchema.migrations {
            try transaction.run("BEGIN", [])
            do {
                // Nodes starting together: the first migrates, the others wait and find it done.
                try transaction.acquire(.duty("migrations"))
                try transaction.run("CREATE TABLE IF NOT EXISTS tilawa_migrations (name text PRIMARY KEY, appliedAt text NOT NULL)", [])
                let done = try transaction.fetchFirstColumn(sql: "SELECT 1 FROM tilawa_migrations WHERE name = ?", arguments: [name])
                if done.isEmpty {
                    try transaction.run(sql, [])
                    try transaction.run("INSERT INTO tilawa_migrations (name, appliedAt) VALUES (?, CAST(now() AS text))", [name])
                }
                try transaction.run("COMMIT", [])
            } catch {
                _ = try? transaction.run("ROLLBACK", [])
                throw error
            }
        }
    }
}
