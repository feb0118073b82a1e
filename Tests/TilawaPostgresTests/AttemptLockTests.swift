import Foundation
import Logging
import PostgresNIO
import Testing
import TilawaPostgres
import TilawaTestSupport

/// The attempt rule's transaction shape on PostgreSQL (DESIGN §13: "the attempt rule stays
/// exact across them"), against a real PostgreSQL 15 with three pools standing for three nodes:
/// ten recordings of one student arriving at once, split over the nodes, the rule allowing two.
@Suite("PostgreSQL: the student lock makes the attempt rule exact across nodes", .enabled(if: PostgresTestServer.isRequested), .heavy)
struct AttemptLockTests {
    enum Shape: String, CaseIterable {
        /// The engine's: the student's advisory lock first, READ COMMITTED.
        case locked
        /// No lock: every transaction counts before any inserts.
        case unlocked
        /// The lock, but REPEATABLE READ: the snapshot is taken as the lock statement starts,
        /// before it waits, so the count after the lock is stale.
        case lockedRepeatableRead
    }

    @Test("Ten at once over three nodes: exactly 2 with the lock; more than 2 without it or under REPEATABLE READ")
    func tenAtOnce() async throws {
        let server = try await PostgresTestServer.start()
        do {
            try await race(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    func race(_ server: PostgresTestServer) async throws {
        let location = try #require(PostgresLocation(url: server.url))
        let nodes = (0..<3).map { _ in LockShapeNode(location: location, password: nil, logger: Logger(label: "test")) }
        try await withThrowingDiscardingTaskGroup { group in
            for node in nodes { group.addTask { await node.run() } }
            try await nodes[0].client.query("CREATE TABLE attempt (id text PRIMARY KEY, student_id text NOT NULL, received_at timestamptz NOT NULL)")
            // Connections open before the race, so that all ten begin together.
            try await withThrowingDiscardingTaskGroup { warm in
                for index in 0..<12 { warm.addTask { try await nodes[index % 3].client.query("SELECT pg_sleep(0.05)") } }
            }
            var admitted: [Shape: Int] = [:]
            for shape in Shape.allCases {
                let student = "S-\(shape.rawValue)"
                admitted[shape] = try await withThrowingTaskGroup(of: Bool.self) { race in
                    for index in 0..<10 {
                        race.addTask { try await Self.admit(student: student, id: "\(student)-\(index)", on: nodes[index % 3], shape: shape) }
                    }
                    return try await race.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            #expect(admitted[.locked] == 2, "\(admitted)")
            #expect((admitted[.unlocked] ?? 0) > 2, "the race this lock prevents happens without it: \(admitted)")
            #expect((admitted[.lockedRepeatableRead] ?? 0) > 2, "a snapshot taken before the lock counts stale rows: \(admitted)")
            group.cancelAll()
        }
    }

    /// One recording's admission: count the student's recordings of the last seven days, insert
    /// when fewer than two (the rule's shape; the full rule reads grants, pauses and weeks owed
    /// the same way, under the same lock). The pause between count and insert widens the window
    /// a race needs, as a slow disk or a busy node would.
    static func admit(student: String, id: String, on node: LockShapeNode, shape: Shape) async throws -> Bool {
        let logger = Logger(label: "test")
        func decide(_ connection: PostgresConnection) async throws -> Bool {
            let rows = try await connection.query(
                "SELECT count(*) FROM attempt WHERE student_id = \(student) AND received_at > now() - interval '7 days'", logger: logger)
            var count = 0
            for try await (value) in rows.decode(Int.self) { count = value }
            _ = try await connection.query("SELECT pg_sleep(0.05)", logger: logger)
            guard count < 2 else { return false }
            try await connection.query("INSERT INTO attempt (id, student_id, received_at) VALUES (\(id), \(student), now())", logger: logger)
            return true
        }
        switch shape {
        case .locked:
            return try await node.withStudentLock(student) { connection in try await decide(connection) }
        case .unlocked:
            return try await node.client.withTransaction(logger: logger) { connection in try await decide(connection) }
        case .lockedRepeatableRead:
            return try await node.client.withTransaction(logger: logger) { connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
                try await connection.query("SELECT pg_advisory_xact_lock(\(Int32(0x5449_4C01)), hashtext(\(student)))", logger: logger)
                return try await decide(connection)
            }
        }
    }
}

@Suite("PostgreSQL: database.url", .heavy)
struct PostgresLocationTests {
    @Test("postgres://user@host[:port]/db is read; a password in the URL, no user, no database or a query is refused",
          arguments: [
            ("postgres://tilawa@db.example.org/tilawa", "postgres://tilawa@db.example.org:5432/tilawa"),
            ("postgresql://app@127.0.0.1:6543/prog", "postgres://app@127.0.0.1:6543/prog"),
            ("postgres://tilawa:secret@db/tilawa", nil), ("postgres://db/tilawa", nil), ("postgres://tilawa@db/", nil),
            ("postgres://tilawa@db/tilawa?sslmode=disable", nil), ("mysql://tilawa@db/tilawa", nil), ("postgres://tilawa@db/a/b", nil),
          ] as [(String, String?)])
    func location(_ url: String, _ expected: String?) {
        #expect(PostgresLocation(url: url)?.description == expected)
    }
}
