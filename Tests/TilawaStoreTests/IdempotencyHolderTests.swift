import Foundation
import Testing
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A daemon's start releases the in-flight keys of requests that died with their process, and
/// on PostgreSQL no other node's: a key another node is still judging an upload under must hold,
/// or the phone's retry on a third node would be admitted as a second recording.
@Suite("Idempotency keys at start-up: a dead process's in-flight keys go, a live node's stay")
struct IdempotencyHolderTests {
    @Test("Keys of this process, of a dead process of this host, of another host, and from before holders", arguments: TestEngine.all)
    func startUpRelease(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        let now = Date()
        for key in ["live", "dead", "elsewhere", "unrecorded"] {
            #expect(try database.claimIdempotencyKey(owner: .student("S1001"), key: key, requestHash: "h", now: now,
                                                     retention: 86_400, inFlightTimeout: 3_600) == .unused)
        }
        let host = ProcessInfo.processInfo.hostName
        try database.engine.write { db in
            try db.execute(sql: "UPDATE idempotencyKey SET holder = ? WHERE key = 'dead'", arguments: ["2147483646@\(host)"])
            try db.execute(sql: "UPDATE idempotencyKey SET holder = ? WHERE key = 'elsewhere'", arguments: ["4242@another-host"])
            try db.execute(sql: "UPDATE idempotencyKey SET holder = NULL WHERE key = 'unrecorded'")
        }
        let holder = try database.engine.read { db in try String.fetchOne(db, sql: "SELECT holder FROM idempotencyKey WHERE key = 'live'") }
        #expect(holder == AppDatabase.processIdentity, "a claim names the process that runs the request")

        // The same liveness the jobs use: a process of this host that exists, or any of another host.
        let released = try database.releaseAbandonedIdempotencyKeys { identity in
            let parts = identity.split(separator: "@")
            guard parts.count == 2, let pid = Int32(parts[0]) else { return false }
            return parts[1] != host[...] || kill(pid, 0) == 0
        }
        let left = try database.engine.read { db in try String.fetchAll(db, sql: "SELECT key FROM idempotencyKey ORDER BY key") }
        switch engine {
        case .sqlite:
            // One process per state directory: every in-flight key was a dead process's.
            #expect(released == 4 && left.isEmpty, "\(left)")
        case .postgres:
            #expect(released == 2 && left == ["elsewhere", "live"], "\(left)")
        }
    }
}
