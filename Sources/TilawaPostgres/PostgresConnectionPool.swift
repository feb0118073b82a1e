import Dispatch
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import TilawaStore

/// At most `size` connections, handed to one transaction at a time; a caller waits for one
/// to be free. Broken connections are dropped and replaced on the next acquire.
final class PostgresConnectionPool: Sendable {
    private let configuration: PostgresConnection.Configuration
    /// How many connections at most.
    let size: Int
    private let idle = Mutex<[PostgresConnection]>([])
    private let free: DispatchSemaphore
    private let nextId = Atomic<Int>(0)
    private let logger: Logger

    init(location: PostgresLocation, password: String?, size: Int, idleInTransactionTimeout: Duration, logger: Logger) {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: password,
            database: location.database, tls: .disable)
        let milliseconds = TimeAmount(idleInTransactionTimeout).nanoseconds / 1_000_000
        configuration.options.additionalStartupParameters = [("idle_in_transaction_session_timeout", "\(max(1, milliseconds))")]
        self.configuration = configuration
        self.size = max(1, size)
        free = DispatchSemaphore(value: self.size)
        self.logger = logger
    }

    deinit {
        // postgres-nio asserts that every connection is closed before it goes.
        closeAll()
    }

    func acquire() throws -> PostgresConnection {
        free.wait()
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        do {
            let id = nextId.add(1, ordering: .relaxed).newValue
            return try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: id, logger: logger).wait()
        } catch {
            free.signal()
            throw Self.unavailable(error, configuration)
        }
    }

    /// A connection outside the pool's count, for a duty held as long as the process runs.
    func connectOwn() async throws -> PostgresConnection {
        let id = nextId.add(1, ordering: .relaxed).newValue
        do {
            return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        } catch {
            throw Self.unavailable(error, configuration)
        }
    }

    /// A failed connection as one line: the server, and why (postgres-nio's own error says
    /// only "PSQLError"; its reflection may hold more than should be logged).
    static func unavailable(_ error: any Error, _ configuration: PostgresConnection.Configuration) -> StoreError {
        let server = configuration.host.map { "\($0):\(configuration.port ?? 5432)" } ?? "the server"
        guard let error = error as? PSQLError else { return .unavailable("cannot connect to PostgreSQL at \(server): \(error)") }
        let reason = error.serverInfo?[.message] ?? error.underlying.map { "\($0)" } ?? "\(error.code)"
        return .unavailable("cannot connect to PostgreSQL at \(server): \(reason)")
    }

    func release(_ connection: PostgresConnection, healthy: Bool = true) {
        if healthy, !connection.isClosed {
            idle.withLock { $0.append(connection) }
        } else {
            try? (connection.close() as EventLoopFuture<Void>).wait()
        }
        free.signal()
    }

    func closeAll() {
        for connection in idle.withLock({ connections in defer { connections = [] }; return connections }) {
            try? (connection.close() as EventLoopFuture<Void>).wait()
        }
    }
}
