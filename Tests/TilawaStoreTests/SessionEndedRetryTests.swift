import Foundation
import GRDB
import Synchronization
import Testing
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A PostgreSQL session ended under the store (an operator's `pg_ctl restart -m fast`,
/// `pg_terminate_backend`, a crash: SQLSTATE 57P01/57P02, or a closed connection) is the
/// database's fault, not the statement's: `database_unavailable` (503 with `Retry-After`), never
/// an internal error; and connections ended while they sat in the pool are replaced unseen.
@Suite("PostgreSQL: a session ended mid-statement is database_unavailable; ended while pooled, it is replaced",
       .enabled(if: PostgresTestServer.isRequested))
struct SessionEndedRetryTests {
    /// Ends the session `pid` from another node's connection a moment after it is called,
    /// while that session waits in the statement its caller sends next.
    private static func terminateSoon(_ pid: Int, from other: AppDatabase) {
        let engine = other.engine
        Thread.detachNewThread {
            _ = try? engine.write { db in
                try Bool.fetchOne(db, sql: "SELECT pg_terminate_backend(CAST(? AS integer)) FROM pg_sleep(0.2)", arguments: [pid])
            }
        }
    }

    @Test("terminated mid-statement: StoreError.unavailable (database_unavailable), not a statement error; nothing written; the node goes on")
    func terminatedMidStatement() async throws {
        let store = try TestStore(.postgres)
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }
        let runs = Atomic<Int>(0)
        let error = await #expect(throws: StoreError.self) {
            try await store.database.engine.write { db in
                runs.add(1, ordering: .relaxed)
                try db.execute(sql: "INSERT INTO student (id, name) VALUES ('S-never', 'Never committed')")
                let pid = try Int.fetchOne(db, sql: "SELECT pg_backend_pid()") ?? 0
                Self.terminateSoon(pid, from: other)
                // Ended mid-statement (or, on a slow box, just before it is sent: the same loss).
                _ = try Int.fetchOne(db, sql: "SELECT 1 FROM pg_sleep(60)")
            }
        }
        #expect(error?.code == "database_unavailable", "\(String(describing: error))")
        #expect(runs.load(ordering: .relaxed) == 1, "a transaction ended after BEGIN is the caller's to ask again")
        let written = try await store.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM student WHERE id = 'S-never'") }
        #expect(written == 0)
        #expect(try await store.database.engine.write { db in try Int.fetchOne(db, sql: "SELECT 2") } == 2)
    }

    @Test("every pooled connection ended while idle, as by a restart: the next transactions run on new connections")
    func pooledConnectionsEnded() async throws {
        let store = try TestStore(.postgres)
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }
        // Connections in the pool: a few transactions at once leave several idle.
        let engine = store.database.engine
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 1...4 {
                group.addTask { _ = try await engine.read { db in try Int.fetchOne(db, sql: "SELECT 1 FROM pg_sleep(0.1)") } }
            }
            try await group.waitForAll()
        }
        let ended = try await other.engine.write { db in
            try Int.fetchOne(db, sql: """
                SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend') AS ended
                """) ?? 0
        }
        #expect(ended >= 1)
        for run in 1...5 {
            #expect(try await engine.write { db in try Int.fetchOne(db, sql: "SELECT ?", arguments: [run]) } == run)
        }
    }
}
