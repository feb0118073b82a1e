import Foundation
import Logging
import Synchronization
import Testing
import TilawaPostgres
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A transaction PostgreSQL refuses for colliding with others (serialization failure 40001,
/// deadlock 40P01) runs again for as long as the store's retry budget lasts, then fails as
/// `database_busy` — the daemon's 503 with `Retry-After` — rather than as an internal error after
/// a fixed ten tries (thirty comments racing on a loaded box ran out of them: CI, one 500).
@Suite("PostgreSQL: a colliding transaction is tried again for its budget, then is database_busy", .enabled(if: PostgresTestServer.isRequested))
struct CollisionRetryTests {
    /// A statement that fails as a real serialization failure would, with its SQLSTATE.
    private static let collide = "DO 'BEGIN RAISE EXCEPTION ''could not serialize access'' USING ERRCODE = ''40001''; END'"

    @Test("refused three times, then let through: the fourth run commits and its result is returned")
    func retriedUntilThrough() async throws {
        let store = try TestStore(.postgres)
        defer { store.remove() }
        let runs = Atomic<Int>(0)
        let result = try await store.database.engine.write { db -> Int in
            let run = runs.add(1, ordering: .relaxed).newValue
            if run <= 3 { try db.execute(sql: Self.collide) }
            try db.execute(sql: "INSERT INTO student (id, name) VALUES (?, ?)", arguments: ["S-run-\(run)", "Committed on run \(run)"])
            return run
        }
        #expect(result == 4 && runs.load(ordering: .relaxed) == 4)
        let written = try await store.database.engine.read { db in try String.fetchAll(db, sql: "SELECT id FROM student WHERE id LIKE 'S-run-%'") }
        #expect(written == ["S-run-4"], "a refused run's insert must not survive")
    }

    @Test("refused every time: tried again for the whole budget (many runs, not ten), then StoreError.busy, database_busy, nothing written")
    func busyAfterBudget() async throws {
        let store = try TestStore(.postgres)
        defer { store.remove() }
        let location = try #require(PostgresLocation(url: store.location))
        let budgeted = PostgresStore(location: location, password: nil, maximumConnections: 1, retryBudget: .seconds(4), logger: Logger(label: "test"))
        defer { budgeted.close() }
        let runs = Atomic<Int>(0)
        let start = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) {
            try await budgeted.write { db in
                runs.add(1, ordering: .relaxed)
                try db.execute(sql: "INSERT INTO student (id, name) VALUES ('S-never', 'Never committed')")
                try db.execute(sql: Self.collide)
            }
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == "database_busy", "\(String(describing: error))")
        #expect(error?.description.contains("40001") == true, "the log keeps the last refusal: \(String(describing: error))")
        // Waits grow to at most 32 ms: four seconds hold far more than ten runs, and the budget bounds the whole.
        #expect(runs.load(ordering: .relaxed) > 10, "runs: \(runs.load(ordering: .relaxed))")
        // Tried for the whole budget: it stops only once the next wait (at most 32 ms) would pass it.
        // No upper bound by the clock (a busy box stretches every run); a retry that never ended
        // would meet the suite's hang limit.
        #expect(elapsed >= .seconds(4) - .milliseconds(100), "stopped before the budget was spent: \(elapsed)")
        #expect(elapsed < TestTime.hangLimit, "the budget bounds the retries: \(elapsed)")
        let written = try await store.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM student WHERE id = 'S-never'") }
        #expect(written == 0)
    }
}
