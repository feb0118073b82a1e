import Foundation
import Logging
import Testing
import TilawaPostgres
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Duties one process performs at a time (the drop-folder watcher, DESIGN §13).
@Suite("Duties: one node at a time, given up when its connection ends")
struct DutyTests {
    @Test("SQLite: the process that opened the state directory holds every duty", arguments: TestEngine.all.filter { $0 == .sqlite })
    func sqlite(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let claim = try #require(try await store.database.claimDuty("dropbox"))
        #expect(await claim.isHeld())
    }

    @Test("PostgreSQL: a second node waits; a release or a dropped connection hands the duty over",
          arguments: TestEngine.all.filter { $0 == .postgres })
    func postgres(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }

        let first = try #require(try await store.database.claimDuty("dropbox"))
        #expect(await first.isHeld())
        #expect(try await other.claimDuty("dropbox") == nil, "held by the first node")
        let unrelated = try #require(try await other.claimDuty("another duty"))
        await unrelated.release()

        await first.release()
        #expect(await !first.isHeld())
        let second = try #require(try await other.claimDuty("dropbox"))
        #expect(await second.isHeld())

        // The second node's connection is cut (a crash, a lost network): the server ends its
        // session and the lock with it; the node learns it from isHeld, and the first node
        // can take over. Only this database's session-level lock (the server is shared with
        // the tests running beside this one, whose transactions hold advisory locks too).
        try await store.database.engine.write { db in
            try db.execute(sql: """
                SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()
                  AND a.datname = current_database() AND a.state = 'idle'
                """)
        }
        #expect(await !second.isHeld())
        var again: (any DutyClaim)?
        for _ in 0..<50 where again == nil {
            again = try await store.database.claimDuty("dropbox")
            if again == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let taken = try #require(again, "the duty came free when the holder's session ended")
        #expect(await taken.isHeld())
        await taken.release()
        await second.release()
    }

    @Test("PostgreSQL: a holder that stops asking (stopped, frozen) loses the duty to another node; one that asks keeps it",
          arguments: TestEngine.all.filter { $0 == .postgres })
    func silentHolder(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let location = try #require(PostgresLocation(url: store.location))
        let frozen = PostgresStore(location: location, password: nil, maximumConnections: 1, dutyIdleTimeout: .seconds(5), logger: Logger(label: "test"))
        defer { frozen.close() }

        // Asking every 200 ms keeps it, well past the idle limit.
        let holder = try #require(try await frozen.claimDuty("dropbox"))
        for _ in 0..<40 {
            try await Task.sleep(for: .milliseconds(200))
            #expect(await holder.isHeld())
        }
        #expect(try await store.database.claimDuty("dropbox") == nil, "held by a holder that asks")

        // Silent past the limit: the server ends the session; another node takes the duty,
        // and the holder learns that it lost it the next time it asks.
        var taken: (any DutyClaim)?
        for _ in 0..<200 where taken == nil {
            try await Task.sleep(for: .milliseconds(100))
            taken = try await store.database.claimDuty("dropbox")
        }
        let successor = try #require(taken, "the silent holder's duty never came free")
        #expect(await !holder.isHeld())
        #expect(await successor.isHeld())
        await successor.release()
        await holder.release()
    }
}
