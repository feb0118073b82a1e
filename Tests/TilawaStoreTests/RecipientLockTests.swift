import Foundation
import Testing
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A week's unlock notices or an announcement to everyone number events for every student in
/// one transaction; on PostgreSQL that must not take a lock per student, or a large programme
/// runs out of the server's shared lock table ("out of shared memory") on every such tick.
@Suite("PostgreSQL: one transaction writing to thousands of queues holds a bounded number of locks",
       .enabled(if: PostgresTestServer.isRequested))
struct RecipientLockTests {
    @Test("3,000 recipients' locks in one transaction: at most 1,024 held, and a recipient's lock still excludes its other writers")
    func bucketed() async throws {
        let store = try TestStore(.postgres)
        defer { store.remove() }
        let held = try await store.database.engine.write { db -> Int in
            for index in 0..<3_000 { try db.acquire(.recipient(String(format: "S%05d", index))) }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()") ?? 0
        }
        #expect(held > 0 && held <= 1_024, "\(held) advisory locks held")

        // Two writers of one recipient still take turns: the second waits while the first holds it.
        let other = try store.anotherNode()
        defer { store.close(other) }
        let waited = try await store.database.engine.write { db -> Bool in
            try db.acquire(.recipient("S00042"))
            let otherEngine = other.engine
            return try otherEngine.write { second -> Bool in
                try second.execute(sql: "SET LOCAL lock_timeout = '300ms'")
                do {
                    try second.acquire(.recipient("S00042"))
                    return false
                } catch {
                    return true
                }
            }
        }
        #expect(waited, "another writer of the same recipient went through while the lock was held")
    }
}
