import Foundation
import GRDB
import TilawaCore

/// Whether a node may work on a resumable upload now (`AppDatabase.holdUpload`).
public enum UploadHold: Sendable, Equatable {
    /// This node holds it until the time it asked for.
    case held
    /// Another node holds it (an append in progress there).
    case heldElsewhere(holder: String)
    /// There is no such upload (any more).
    case gone
}

/// One append's bytes as an object in the artifact store, so that another node can resume
/// an upload this node received part of (DESIGN §13): `[startOffset, startOffset + length)` of
/// the upload is the object at `object` (a path the artifact remote resolves).
public struct UploadSegment: Sendable, Equatable {
    public var startOffset: Int64
    public var length: Int64
    public var object: String

    public init(startOffset: Int64, length: Int64, object: String) {
        self.startOffset = startOffset
        self.length = length
        self.object = object
    }

    /// The object path for the bytes an append starting at `startOffset` brought: one per
    /// try (`nonce`), so two nodes racing for the same offset never overwrite each other.
    public static func objectPath(uploadId: String, startOffset: Int64, nonce: String) -> String {
        "\(folder(of: uploadId))\(startOffset)-\(nonce)"
    }

    /// The folder holding an upload's segment objects.
    public static func folder(of uploadId: String) -> String { "uploads/\(uploadId)/" }
}

extension AppDatabase {
    /// How long a node's hold on an upload lasts unless renewed (every third of it while an
    /// append runs): a node that dies gives its uploads up this long after.
    public static let uploadHoldDuration: TimeInterval = 30

    /// The migration "uploads: any node": which node works on an upload and until when, and
    /// the objects holding each recorded append when artifacts are in a shared store.
    static func migrateUploadsAnyNode(_ db: Database) throws {
        try db.alter(table: "resumableUpload") { t in
            t.add(column: "holder", .text)
            t.add(column: "heldUntil", .datetime)
        }
        try db.create(table: "uploadSegment") { t in
            t.column("uploadId", .text).notNull()
            t.column("startOffset", .integer).notNull()
            t.column("length", .integer).notNull()
            t.column("object", .text).notNull()
            t.primaryKey(["uploadId", "startOffset"])
        }
    }

    /// Takes (or renews) `holder`'s hold on upload `id` until `until`, measured on the wall
    /// clock: granted when no node holds it, its hold ran out, or `holder` already holds it.
    public func holdUpload(id: String, holder: String, until: Date, now: Date = Date()) async throws -> UploadHold {
        try await engine.write { db in
            try db.execute(sql: """
                UPDATE resumableUpload SET holder = ?, heldUntil = ?
                WHERE id = ? AND (holder IS NULL OR holder = ? OR heldUntil IS NULL OR heldUntil <= ?)
                """, arguments: [holder, until, id, holder, now])
            if db.changesCount == 1 { return .held }
            guard let other = try String?.fetchOne(db, sql: "SELECT holder FROM resumableUpload WHERE id = ?", arguments: [id]) else {
                return .gone
            }
            return other.map { .heldElsewhere(holder: $0) } ?? .gone
        }
    }

    /// Takes upload `id` from `previous`, a holder known to be dead (a process of this host
    /// that was killed), without waiting for its hold to run out; false when `previous` no
    /// longer holds it.
    public func takeOverUpload(id: String, from previous: String, holder: String, until: Date) async throws -> Bool {
        try await engine.write { db in
            try db.execute(sql: "UPDATE resumableUpload SET holder = ?, heldUntil = ? WHERE id = ? AND holder = ?",
                           arguments: [holder, until, id, previous])
            return db.changesCount == 1
        }
    }

    /// Gives up `holder`'s hold on upload `id` (nothing when another node holds it now).
    public func releaseUpload(id: String, holder: String) async throws {
        try await engine.write { db in
            try db.execute(sql: "UPDATE resumableUpload SET holder = NULL, heldUntil = NULL WHERE id = ? AND holder = ?",
                           arguments: [id, holder])
        }
    }

    /// Records durable progress of an upload still receiving that is at `from` (compare and
    /// set: an append on another node that recorded first wins, and this one's bytes do not
    /// count), with the object holding the appended bytes when they are in a shared store.
    /// The write that records the last byte also marks the upload `completing`, in the same
    /// statement: a whole upload is never left `receiving` (nothing would judge it), whatever
    /// happens to the request after. False when the upload is no longer receiving at `from`.
    @discardableResult
    public func recordUploadProgress(id: String, from: Int64, progress: UploadProgress, segment: UploadSegment? = nil, expiresAt: Date,
                                     now: Date) async throws -> Bool {
        try await engine.write { db in
            try db.execute(sql: """
                UPDATE resumableUpload SET "offset" = ?, "length" = ?, state = ?, expiresAt = ?, updatedAt = ?
                WHERE id = ? AND state = 'receiving' AND "offset" = ?
                """, arguments: [progress.offset, progress.length, progress.isComplete ? "completing" : "receiving", expiresAt, now, id, from])
            guard db.changesCount == 1 else { return false }
            if let segment {
                try db.execute(sql: "DELETE FROM uploadSegment WHERE uploadId = ? AND startOffset >= ?", arguments: [id, segment.startOffset])
                try db.execute(sql: "INSERT INTO uploadSegment (uploadId, startOffset, length, object) VALUES (?, ?, ?, ?)",
                               arguments: [id, segment.startOffset, segment.length, segment.object])
            }
            return true
        }
    }

    /// The recorded appends of upload `id` in a shared store, in order.
    public func uploadSegments(id: String) async throws -> [UploadSegment] {
        try await engine.read { db in
            var segments: [UploadSegment] = []
            try db.forEachRow(sql: "SELECT startOffset, length, object FROM uploadSegment WHERE uploadId = ? ORDER BY startOffset",
                              arguments: [id]) { row in
                segments.append(UploadSegment(startOffset: row["startOffset"], length: row["length"], object: row["object"]))
            }
            return segments
        }
    }

    /// Ids of the uploads not yet answered, whose append objects must stay (the sweep's view).
    public func openUploadIds() throws -> Set<String> {
        try engine.read { db in try Set(String.fetchAll(db, sql: "SELECT id FROM resumableUpload WHERE state != 'answered'")) }
    }

    /// Forgets the segments of uploads that no longer need their bytes (answered, cancelled,
    /// expired); called in the transaction that ends their need.
    static func forgetUploadSegments(_ db: SQLSession, uploadId: String) throws {
        try db.execute(sql: "DELETE FROM uploadSegment WHERE uploadId = ?", arguments: [uploadId])
    }
}
