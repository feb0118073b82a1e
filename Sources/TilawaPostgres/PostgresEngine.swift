import Logging
import PostgresNIO

/// The PostgreSQL engine's pool of connections to `database.url` (DESIGN §13), and the one
/// transaction shape the programme's rules need across nodes.
///
/// `run()` must be running (a service in the daemon, a task in a test) for queries to get a
/// connection.
public struct PostgresEngine: Sendable {
    public let client: PostgresClient
    public let location: PostgresLocation
    let logger: Logger

    /// The first key of every student lock (`pg_advisory_xact_lock(int, int)`): Tilawa's own
    /// space, so an operator's or another program's advisory locks never wait on ours.
    static let studentLockSpace: Int32 = 0x5449_4C01

    public init(location: PostgresLocation, password: String?, maximumConnections: Int = 20, logger: Logger) {
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: password, database: location.database, tls: .disable)
        configuration.options.maximumConnections = maximumConnections
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.location = location
        self.logger = logger
    }

    /// Keeps the pool until the surrounding task is cancelled.
    public func run() async {
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
    public func withStudentLock<T: Sendable>(_ studentId: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.studentLockSpace), hashtext(\(studentId)))", logger: logger)
            return try await body(connection)
        }
    }
}
