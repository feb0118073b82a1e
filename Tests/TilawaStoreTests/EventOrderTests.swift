import Dispatch
import Foundation
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A student's feed read with a cursor while two writers add to it (DESIGN §13): on PostgreSQL
/// a sequence numbers events as transactions ask, and they may commit in another order; the
/// recipient's lock makes one recipient's events commit in the order of their numbers.
@Suite("Event numbers: a reader racing two writers of one feed never skips an event")
struct EventOrderTests {
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        /// The store's own: `insertEvent`, the recipient's lock first.
        case locked
        /// Control: a plain insert. On PostgreSQL the later number commits first and the
        /// reader, having moved past it, never sees the earlier one.
        case unlocked

        var testDescription: String { rawValue }
    }

    static var cases: [(TestEngine, Writer)] {
        TestEngine.all.flatMap { engine in
            // SQLite's writers take turns whatever the code does: its control would only wait.
            engine == .sqlite ? [(engine, Writer.locked)] : Writer.allCases.map { (engine, $0) }
        }
    }

    @Test("Writer A holds its transaction open; B writes; the reader reads; A commits: the reader sees A, then B", arguments: cases)
    func readerRacingTwoWriters(engine: TestEngine, writer: Writer) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        let at = TestStore.newYork(2026, 9, 20)
        let inserted = DispatchSemaphore(value: 0)
        let commitA = DispatchSemaphore(value: 0)
        let write = { @Sendable (name: String, db: SQLSession) throws in
            var event = EventRecord(id: "evt_\(name)", studentId: "S1001", type: "announcement", payload: Data("{}".utf8),
                                    occurredAt: at, recipient: .student)
            switch writer {
            case .locked: try AppDatabase.insertEvent(db, &event)
            case .unlocked: try event.insert(db)
            }
        }
        // The writers block their threads (a transaction held open, a lock waited for): threads
        // of their own, never two of the cooperative pool's few.
        async let a: Void = onOwnThread {
            try database.engine.write { db in
                try write("A", db)
                inserted.signal()
                commitA.wait()
            }
        }
        await onOwnThread { inserted.wait() }
        async let b: Void = onOwnThread { try database.engine.write { db in try write("B", db) } }
        // Give B the chance to commit ahead of A (it does, unlocked on PostgreSQL: seen as soon as
        // it has, however loaded the machine — up to 30 s); locked, it waits for A's lock and this
        // returns after two seconds of not seeing it.
        let probes = writer == .unlocked ? 300 : 20
        let bFirst = await onOwnThread { () -> Bool in
            for _ in 0..<probes {
                if (try? database.events(studentId: "S1001", after: 0, limit: 10))?.contains(where: { $0.id == "evt_B" }) == true { return true }
                usleep(100_000)
            }
            return false
        }
        // The reader reads now and keeps its cursor, as an app does.
        let firstPage = try await database.events(studentId: "S1001", after: 0, limit: 10)
        let cursor = firstPage.last?.seq ?? 0
        commitA.signal()
        try await a
        try await b
        let secondPage = try await database.events(studentId: "S1001", after: cursor, limit: 10)
        let seen = (firstPage + secondPage).map(\.id)
        switch writer {
        case .locked:
            #expect(!bFirst, "B committed while A held the student's feed")
            #expect(seen == ["evt_A", "evt_B"], "\(seen)")
        case .unlocked:
            #expect(bFirst && seen == ["evt_B"], "the control skips A: \(seen)")
        }
    }
}

/// Runs `body` on a thread of its own, off the cooperative pool (it blocks).
private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
