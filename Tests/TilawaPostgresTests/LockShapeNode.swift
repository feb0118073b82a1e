import Logging
import PostgresNIO
import TilawaPostgres

/// One node of `AttemptLockTests`: a `PostgresClient` pool and the student-lock transaction
/// shape, written out with postgres-nio's own API so the test can set it beside the shapes that
/// fail. The product's is `PostgresStore.lockedWrite` (the same lock, the same isolation); this
/// was its first prototype and lives with the test that compares the shapes.
///
/// `run()` must be running (a task in the test) for queries to get a connection.
struct LockShapeNode: Sendable {
    let client: PostgresClient
    let location: PostgresLocation
    let logger: Logger

    /// The first key of every student lock (`pg_advisory_xact_lock(int, int)`), as
    /// `PostgresTransaction.lockKey(.student(_:))` has it.
    static let studentLockSpace: Int32 = 0x5449_4C01

    init(location: PostgresLocation, password: String?, maximumConnections: Int = 20, logger: Logger) {
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: password, database: location.database, tls: .disable)
        configuration.options.maximumConnections = maximumConnections
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.location = location
        self.logger = logger
    }

    /// Keeps the pool until the surrounding task is cancelled.
    func run() async {
        await client.run()
    }

    /// Runs `body` in one transaction that first waits for the student's lock, so that every
    /// node's admission of this student's recordings happens one after the other.
    ///
    /// READ COMMITTED (PostgreSQL's default) on purpose: each statement reads what was committed
    /// when *it* starts, so the counts `body` reads after the lock include the admission that
    /// held it. Under REPEATABLE READ the snapshot would be taken by the lock statement itself —
    /// before it waited — and every waiter would count stale rows (`AttemptLockTests` shows both).
    /// The lock is the transaction's: released by its commit or rollback, and by the server
    /// when the connection dies.
    func withStudentLock<T: Sendable>(_ studentId: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.studentLockSpace), hashtext(\(studentId)))", logger: logger)
            return try await body(connection)
        }
    }
}
