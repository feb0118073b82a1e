import Foundation
import Synchronization
import Testing
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// The installation's key for the log's pseudonyms (issue 46), on both engines: made once, the
/// first time it is asked for, kept in `meta`, and the same for every node of the database.
@Suite("The log's pseudonym key: made once, kept with the data, shared by every node")
struct LogKeyTests {
    @Test("32 bytes, kept as 64 hex digits; the same when asked again and from another node; another installation's differs",
          arguments: TestEngine.all)
    func keptAndShared(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let key = try store.database.logPseudonymKey(now: Date())
        #expect(key.count == AppDatabase.logKeyLength)
        #expect(Set(key).count > 1, "random bytes, not a constant")
        #expect(try store.database.logPseudonymKey(now: Date()) == key)
        let other = try store.anotherNode()
        defer { store.close(other) }
        #expect(try other.logPseudonymKey(now: Date()) == key)
        let stored = try await store.database.engine.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'log_pseudonym_key'")
        }
        #expect(stored == AppDatabase.hex(key))

        let elsewhere = try TestStore(engine)
        defer { elsewhere.remove() }
        #expect(try elsewhere.database.logPseudonymKey(now: Date()) != key)
    }

    @Test("nodes that make it at the same moment agree: one key is kept and every one of them is given it", arguments: TestEngine.all)
    func racingNodesAgree(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let nodes = [store.database, try store.anotherNode(), try store.anotherNode()]
        defer { nodes.dropFirst().forEach { store.close($0) } }
        let collected = Collected()
        // Threads of their own, all at once: each reads no key, offers its own, and keeps the stored one.
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            let result = Result { try nodes[index % nodes.count].logPseudonymKey(now: Date()) }
            collected.results.withLock { $0.append(result) }
        }
        let keys = try collected.results.withLock { $0 }.map { try $0.get() }
        #expect(keys.count == 12)
        #expect(Set(keys).count == 1, "\(Set(keys).count) different keys")
        #expect(try nodes[1].logPseudonymKey(now: Date()) == keys.first)
    }

    /// What the racing threads were given.
    private final class Collected: Sendable {
        let results = Mutex<[Result<[UInt8], any Error>]>([])
    }

    @Test("a stored value that is not a key is an error, not a key of zeros")
    func damagedValue() throws {
        #expect(throws: StoreError.self) { try AppDatabase.logKey(fromHex: "abc") }
        #expect(throws: StoreError.self) { try AppDatabase.logKey(fromHex: String(repeating: "zz", count: 32)) }
        let expected: [UInt8] = [0x0a, 0xf0, 0xaf] + Array(repeating: 0x00, count: 28) + [0xff]
        #expect(try AppDatabase.logKey(fromHex: "0aF0aF" + String(repeating: "00", count: 28) + "fF") == expected, "either case")
    }
}
