import Foundation
import GRDB

/// One `tilawa serve` process as the database last saw it (the cluster view of `status`).
public struct NodeFact: Sendable, Equatable {
    /// `pid@host`: the prefix of its encode workers' names and its uploads' holder.
    public var id: String
    public var startedAt: Date
    /// When it last said it was alive (every `AppDatabase.nodeHeartbeat`).
    public var seenAt: Date
    /// Encode jobs its workers hold.
    public var jobsRunning: Int
    /// Resumable uploads it is receiving or judging.
    public var uploadsHeld: Int

    public init(id: String, startedAt: Date, seenAt: Date, jobsRunning: Int, uploadsHeld: Int) {
        self.id = id
        self.startedAt = startedAt
        self.seenAt = seenAt
        self.jobsRunning = jobsRunning
        self.uploadsHeld = uploadsHeld
    }
}

extension AppDatabase {
    /// How often a daemon says it is alive.
    public static let nodeHeartbeat: TimeInterval = 10
    /// How long a node that stopped saying so stays in the cluster view (as not seen lately).
    public static let nodeMemory: TimeInterval = 3_600

    /// The migration "nodes: seen": each daemon's last sign of life, for the cluster view.
    static func migrateNodes(_ db: Database) throws {
        try db.create(table: "node") { t in
            t.primaryKey("id", .text)
            t.column("startedAt", .datetime).notNull()
            t.column("seenAt", .datetime).notNull()
        }
    }

    /// Records that node `id` (started at `startedAt`) is alive at `now` (the wall clock), and
    /// forgets nodes not seen for `nodeMemory`.
    public func recordNodeSeen(id: String, startedAt: Date, now: Date = Date()) async throws {
        try await engine.write { db in
            try db.execute(sql: """
                INSERT INTO node (id, startedAt, seenAt) VALUES (?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET startedAt = excluded.startedAt, seenAt = excluded.seenAt
                """, arguments: [id, startedAt, now])
            try db.execute(sql: "DELETE FROM node WHERE seenAt < ?", arguments: [now.addingTimeInterval(-Self.nodeMemory)])
        }
    }

    /// The ids (`pid@host`) of the nodes that said they were alive at or after `since` (the wall
    /// clock), most recently seen first.
    public func nodesSeen(since: Date) async throws -> [String] {
        try await engine.read { db in
            guard try db.tableExists("node") else { return [] }
            return try String.fetchAll(db, sql: "SELECT id FROM node WHERE seenAt >= ? ORDER BY seenAt DESC, id", arguments: [since])
        }
    }

    /// Forgets node `id` (it stopped cleanly).
    public func forgetNode(id: String) async throws {
        try await engine.write { db in try db.execute(sql: "DELETE FROM node WHERE id = ?", arguments: [id]) }
    }

    /// The nodes seen within `nodeMemory` of `now` (the wall clock), most recently seen first,
    /// each with the job leases and upload holds it has.
    static func nodeFacts(_ db: SQLSession, now: Date) throws -> [NodeFact] {
        guard try db.tableExists("node") else { return [] }
        var nodes: [NodeFact] = []
        try db.forEachRow(sql: """
            SELECT id, startedAt, seenAt,
              (SELECT COUNT(*) FROM job WHERE state = 'running' AND substr(lockedBy, 1, length(node.id) + 1) = node.id || '#') AS jobs,
              (SELECT COUNT(*) FROM resumableUpload WHERE holder = node.id AND heldUntil > ?) AS uploads
            FROM node WHERE seenAt >= ? ORDER BY seenAt DESC, id
            """, arguments: [now, now.addingTimeInterval(-nodeMemory)]) { row in
            nodes.append(NodeFact(id: row["id"], startedAt: row["startedAt"], seenAt: row["seenAt"], jobsRunning: row["jobs"],
                                  uploadsHeld: row["uploads"]))
        }
        return nodes
    }

    /// Running jobs whose lease ran out by `now` (the wall clock): their node died or stalled,
    /// and an idle worker of any node gives them back.
    static func expiredJobLeaseCount(_ db: SQLSession, now: Date) throws -> Int {
        guard try db.tableExists("job") else { return 0 }
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE state = 'running' AND leaseExpiresAt <= ?", arguments: [now]) ?? 0
    }
}
