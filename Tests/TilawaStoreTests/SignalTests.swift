import Foundation
import Synchronization
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Nodes waking each other (DESIGN §13): LISTEN/NOTIFY on PostgreSQL, sent by the schema's
/// triggers when a transaction that queued a job or recorded an event commits.
@Suite("Signals between nodes: a queued job and a recorded event wake the others; an upload's release reaches them")
struct SignalTests {
    final class Heard: Sendable {
        let signals = Mutex<[(StoreSignal?, String)]>([])
        func count(_ signal: StoreSignal?, _ payload: String? = nil) -> Int {
            signals.withLock { $0.filter { $0.0 == signal && (payload == nil || $0.1 == payload) }.count }
        }
        /// `node` listening to every signal, each heard recorded here; cancel the task to stop.
        func listen(on node: AppDatabase) -> Task<Void, Never> {
            Task { await node.engine.listen(to: StoreSignal.allCases) { signal, payload in self.signals.withLock { $0.append((signal, payload)) } } }
        }

        /// Waits (bounded) until `condition` holds.
        func wait(_ condition: () -> Bool) async -> Bool {
            for _ in 0..<200 {
                if condition() { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return condition()
        }
    }

    @Test("PostgreSQL: another node hears a job queued (and given back), an event recorded, and an upload's release",
          arguments: TestEngine.all.filter { $0 == .postgres })
    func postgres(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }
        let heard = Heard()
        let listening = heard.listen(on: other)
        defer { listening.cancel() }
        #expect(await heard.wait { heard.count(nil) >= 1 }, "listening began")
        // Give the LISTENs a moment to be registered before the first NOTIFY.
        try await Task.sleep(for: .milliseconds(500))

        let at = TestStore.newYork(2026, 9, 20)
        _ = try await onOwnThread { try store.database.admitSubmission(store.request("S1001", .week(1), at: at), policy: ProgramPolicy()) }
        #expect(await heard.wait { heard.count(.jobs) >= 1 && heard.count(.outbox) >= 1 }, "\(heard.signals.withLock { $0.map { "\($0)" } })")

        let jobs = heard.count(.jobs)
        let job = try #require(try await onOwnThread { try store.database.claimNextJob(worker: "a@host", now: at) })
        try await onOwnThread { try store.database.requeueJob(try #require(job.lease)) }
        #expect(await heard.wait { heard.count(.jobs) > jobs }, "a job given back is queued again")

        try await store.database.engine.send(.uploadRelease, payload: "upl_x")
        #expect(await heard.wait { heard.count(.uploadRelease, "upl_x") == 1 })
    }

    @Test("PostgreSQL: a listener whose session the server ends listens again, and counts what it missed as a wake-up",
          arguments: TestEngine.all.filter { $0 == .postgres })
    func listenerReconnects(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let other = try store.anotherNode()
        defer { store.close(other) }
        let heard = Heard()
        let listening = heard.listen(on: other)
        defer { listening.cancel() }

        /// The backends of this database that are listening (one session listens on every channel).
        func listeners() throws -> [Int] {
            try store.database.engine.read { db in
                try Int.fetchAll(db, sql: """
                    SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' ORDER BY pid
                    """)
            }
        }
        #expect(await heard.wait { heard.count(nil) == 1 && !((try? listeners()) ?? []).isEmpty })
        let before = try listeners()
        try #require(!before.isEmpty, "the listener's session is not to be seen")

        // An operator's pg_terminate_backend, a restart, a failover: the session ends.
        try await store.database.engine.write { db in
            for pid in Set(before) { try db.execute(sql: "SELECT pg_terminate_backend(CAST(? AS integer))", arguments: [pid]) }
        }
        // It listens again on a new session and wakes as if signalled (what was sent meanwhile).
        #expect(await heard.wait { heard.count(nil) == 2 }, "no wake-up after the reconnection")
        #expect(await heard.wait {
            let now = (try? listeners()) ?? []
            return !now.isEmpty && Set(now).isDisjoint(with: before)
        }, "not listening again on a new session")
        // Sent until heard: the session's three LISTENs may not all have been registered yet.
        var heardAfter = false
        for _ in 0..<20 where !heardAfter {
            try await store.database.engine.send(.uploadRelease, payload: "upl_after")
            try await Task.sleep(for: .milliseconds(250))
            heardAfter = heard.count(.uploadRelease, "upl_after") >= 1
        }
        #expect(heardAfter, "a signal sent after the reconnection is heard")
    }
}
