import Foundation
import GRDB
import Logging
import Synchronization
import Testing
import TilawaPostgres
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// What a node does when PostgreSQL ends one of its sessions (an operator's
/// `pg_terminate_backend`, a restart, a failover) or when the node itself stalls inside a
/// transaction: the operation fails with a reason, nothing waits forever, and the others go on.
@Suite("PostgreSQL: a session ended under a transaction fails it and nothing waits forever", .enabled(if: PostgresTestServer.isRequested))
struct ConnectionLossTests {
    @Test("A session the server ends between two statements: the transaction fails as database_unavailable, the next one runs")
    func endedBetweenStatements() async throws {
        let store = try TestStore(.postgres)
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }
        let engine = store.database.engine, otherEngine = other.engine
        let outcome = Mutex<Result<Int, any Error>?>(nil)
        Thread.detachNewThread {
            let result = Result {
                try engine.write { db -> Int in
                    let pid = try Int.fetchOne(db, sql: "SELECT pg_backend_pid()") ?? 0
                    _ = try otherEngine.write { try Bool.fetchOne($0, sql: "SELECT pg_terminate_backend(CAST(? AS integer))", arguments: [pid]) }
                    // The client sees its session end before the next statement is sent: this is
                    // the statement postgres-nio would never answer.
                    usleep(500_000)
                    return try Int.fetchOne(db, sql: "SELECT 1") ?? 0
                }
            }
            outcome.withLock { $0 = result }
        }
        #expect(await eventually { outcome.withLock { $0 != nil } }, "the transaction never ended")
        let failure = outcome.withLock { state -> (any Error)? in
            guard case let .failure(error) = state else { return nil }
            return error
        }
        let error = try #require(failure, "a statement on an ended session cannot succeed")
        #expect((error as? StoreError)?.code == "database_unavailable", "\(String(reflecting: error))")
        // The pool dropped the closed connection: the next transaction runs on a new one.
        #expect(try await engine.write { db in try Int.fetchOne(db, sql: "SELECT 2") } == 2)
    }

    @Test("A node stalled inside a transaction: the server ends its session, another node's admission goes on, the stalled one writes nothing")
    func stalledHolderLetsGo() async throws {
        let store = try TestStore(.postgres)
        defer { store.remove() }
        let location = try #require(PostgresLocation(url: store.location))
        // The stalled node, with a server-side limit of one second idle inside a transaction.
        let stalled = PostgresStore(location: location, password: nil, maximumConnections: 1, idleInTransactionTimeout: .seconds(1),
                                    logger: Logger(label: "test"))
        defer { stalled.close() }
        let other = try store.anotherNode()
        defer { store.close(other) }

        let steps = Mutex<[String]>([])
        let start = ContinuousClock.now
        let times = Mutex<[String]>([])
        let mark: @Sendable (String) -> Void = { what in times.withLock { $0.append("\(what) at \(ContinuousClock.now - start)") } }
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let otherOutcome = Mutex<Result<Void, any Error>?>(nil)
        let otherEngine = other.engine
        Thread.detachNewThread {
            let result = Result {
                try stalled.lockedWrite(.student("S1001")) { db in
                    mark("stalled node holds the lock")
                    // Another node's admission of the same student, started now on a thread of its
                    // own (nothing here waits for the test's tasks to be scheduled): it waits for the lock.
                    Thread.detachNewThread {
                        let admitted = Result {
                            try otherEngine.lockedWrite(.student("S1001")) { db in
                                try StudentRecord(id: "S-next", name: "Admitted by another node").insert(db)
                            }
                            steps.withLock { $0.append("other node admitted") }
                            mark("other node admitted")
                        }
                        otherOutcome.withLock { $0 = admitted }
                    }
                    // Stopped (SIGSTOP, a frozen VM) while it holds the student's lock.
                    sleep(10)
                    steps.withLock { $0.append("stalled node woke") }
                    mark("stalled node woke")
                    try StudentRecord(id: "S-stale", name: "Written after the lock was lost").insert(db)
                }
            }
            outcome.withLock { $0 = result }
        }
        #expect(await eventually { otherOutcome.withLock { $0 != nil } })
        #expect(otherOutcome.withLock { state in if case .success = state { true } else { false } }, "the other node's admission failed")
        #expect(await eventually { outcome.withLock { $0 != nil } })
        #expect(steps.withLock { $0 } == ["other node admitted", "stalled node woke"],
                "the other node waited for the stalled one: \(times.withLock { $0 })")
        let stalledFailed = outcome.withLock { state in
            if case .failure = state { true } else { false }
        }
        #expect(stalledFailed, "a transaction whose session was ended cannot commit")
        let names = try await other.engine.read { db in try String.fetchAll(db, sql: "SELECT id FROM student WHERE id LIKE 'S-%' ORDER BY id") }
        #expect(names == ["S-next"])
    }
}
