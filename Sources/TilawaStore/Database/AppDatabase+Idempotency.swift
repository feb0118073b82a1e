import Foundation
import GRDB
import TilawaCore

/// What an `Idempotency-Key` has seen before (the protocol's own record type).
public typealias IdempotencyState = IdempotencyStateMachine.Record

extension AppDatabase {
    /// The migration "idempotency: keys by owner": the key space of a student (their uploads)
    /// or of a coach (their replies). The column `studentId` becomes `owner`; its values stay
    /// as they are, a student's id, so nothing is rewritten (`IdempotencyOwner`). Never
    /// edited once landed.
    static func migrateIdempotencyOwners(_ db: Database) throws {
        try db.alter(table: "idempotencyKey") { t in
            t.rename(column: "studentId", to: "owner")
        }
    }

    /// The state of `key` in `owner`'s key space, treating keys older than `retention` as unused and
    /// in-flight keys older than `inFlightTimeout` as abandoned (their request died with a
    /// process), so a retry is never refused forever.
    public func idempotencyState(owner: IdempotencyOwner, key: String, now: Date, retention: TimeInterval, inFlightTimeout: TimeInterval) throws -> IdempotencyState {
        retryPendingIdempotencyReleases()
        return try engine.write(Self.idempotencyStateQuery(owner: owner, key: key, now: now, retention: retention, inFlightTimeout: inFlightTimeout))
    }

    /// `idempotencyState` from async code: suspends on GRDB's async write instead of blocking a thread of the cooperative pool.
    public func idempotencyState(owner: IdempotencyOwner, key: String, now: Date, retention: TimeInterval, inFlightTimeout: TimeInterval) async throws -> IdempotencyState {
        await retryPendingIdempotencyReleases()
        return try await engine.write(Self.idempotencyStateQuery(owner: owner, key: key, now: now, retention: retention, inFlightTimeout: inFlightTimeout))
    }

    /// The transaction of `idempotencyState`, shared by its synchronous and async forms.
    static func idempotencyStateQuery(owner: IdempotencyOwner, key: String, now: Date, retention: TimeInterval, inFlightTimeout: TimeInterval) -> @Sendable (SQLSession) throws -> IdempotencyState {
        { db in
            guard let row = try IdempotencyKeyRecord.fetchOne(db, key: ["owner": owner.storageValue, "key": key]) else { return .unused }
            let age = now.timeIntervalSince(row.createdAt)
            switch row.state {
            case .inFlight where age > inFlightTimeout, .done where age > retention:
                try row.delete(db)
                return .unused
            case .inFlight:
                return .inFlight
            case .done:
                return .answered(requestHash: row.requestHash, status: row.responseStatus ?? 500, body: row.responseBody ?? Data())
            }
        }
    }

    /// Claims `key` for a request with `requestHash` in one transaction: answers `.unused` when
    /// the key is now this request's (in flight), or what it held — another request in flight,
    /// or a stored answer (expired records count as unused, as in `idempotencyState`).
    public func claimIdempotencyKey(owner: IdempotencyOwner, key: String, requestHash: String, now: Date, retention: TimeInterval, inFlightTimeout: TimeInterval) throws -> IdempotencyState {
        try engine.write(Self.claimIdempotencyKeyQuery(owner: owner, key: key, requestHash: requestHash, now: now, retention: retention, inFlightTimeout: inFlightTimeout))
    }

    /// `claimIdempotencyKey` from async code: suspends on GRDB's async write instead of blocking a thread of the cooperative pool.
    public func claimIdempotencyKey(owner: IdempotencyOwner, key: String, requestHash: String, now: Date, retention: TimeInterval, inFlightTimeout: TimeInterval) async throws -> IdempotencyState {
        try await engine.write(Self.claimIdempotencyKeyQuery(owner: owner, key: key, requestHash: requestHash, now: now, retention: retention, inFlightTimeout: inFlightTimeout))
    }

    /// The transaction of `claimIdempotencyKey`, shared by its synchronous and async forms.
    static func claimIdempotencyKeyQuery(owner: IdempotencyOwner, key: String, requestHash: String, now: Date, retention: TimeInterval, inFlightTimeout: TimeInterval) -> @Sendable (SQLSession) throws -> IdempotencyState {
        { db in
            if let row = try IdempotencyKeyRecord.fetchOne(db, key: ["owner": owner.storageValue, "key": key]) {
                let age = now.timeIntervalSince(row.createdAt)
                switch row.state {
                case .inFlight where age > inFlightTimeout, .done where age > retention:
                    try row.delete(db)
                case .inFlight:
                    return .inFlight
                case .done:
                    return .answered(requestHash: row.requestHash, status: row.responseStatus ?? 500, body: row.responseBody ?? Data())
                }
            }
            try db.execute(sql: "INSERT INTO idempotencyKey (owner, key, requestHash, state, createdAt, holder) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [owner.storageValue, key, requestHash, IdempotencyKeyRecord.State.inFlight.rawValue, now,
                                       AppDatabase.processIdentity])
            return .unused
        }
    }

    /// Stores the answer to replay for `key`.
    public func finishIdempotentRequest(owner: IdempotencyOwner, key: String, status: Int, body: Data) async throws {
        try await engine.write { db in
            try db.execute(
                sql: "UPDATE idempotencyKey SET state = ?, responseStatus = ?, responseBody = ? WHERE owner = ? AND key = ?",
                arguments: [IdempotencyKeyRecord.State.done.rawValue, status, body, owner.storageValue, key])
        }
    }

    /// Releases `key` without an answer (the request failed on our side): a retry runs anew.
    /// Only a key still in flight: one answered already — by the transaction that created what
    /// the request asked for (`rememberCreated`) — stays answered, so a retry finds it.
    /// Not cancellable half-way: it runs even when the request's task was cancelled. When it
    /// fails (the database is away), the release is kept and tried again
    /// (`retryPendingIdempotencyReleases`), so the phone's retry is not held at 409 for the
    /// in-flight timeout.
    public func abandonIdempotentRequest(owner: IdempotencyOwner, key: String) throws {
        do {
            try engine.write(Self.releaseInFlight(owner: owner.storageValue, key: key))
            PendingIdempotencyReleases.remove(owner: owner.storageValue, key: key)
        } catch {
            PendingIdempotencyReleases.add(owner: owner.storageValue, key: key, engine: engine)
            throw error
        }
    }

    /// The migration "idempotency: holder": which process runs an in-flight key's request.
    static func migrateIdempotencyHolder(_ db: Database) throws {
        try db.alter(table: "idempotencyKey") { t in
            t.add(column: "holder", .text)
        }
    }

    /// `pid@host`: the process that claims a key (the same form as the encode workers' names).
    public static let processIdentity = "\(getpid())@\(ProcessInfo.processInfo.hostName)"

    /// At a daemon's start: releases the in-flight keys whose request died with its process,
    /// so a phone's retry runs at once instead of waiting out the in-flight timeout.
    ///
    /// On SQLite the state directory's lock makes this daemon the only process: every in-flight
    /// key is a dead one's. On PostgreSQL other nodes are running requests: only the keys of a
    /// process of this host that no longer exists (`isAlive`, as for jobs) and those claimed
    /// before holders were recorded go; another node's stay until their request ends or the
    /// in-flight timeout passes. Returns how many were released.
    @discardableResult
    public func releaseAbandonedIdempotencyKeys(isAlive: @escaping @Sendable (String) -> Bool) throws -> Int {
        let everyKey = !engine.isShared
        return try engine.write { db in
            let inFlight = try Row.fetchAll(db, sql: "SELECT owner, key, holder FROM idempotencyKey WHERE state = ?",
                                            arguments: [IdempotencyKeyRecord.State.inFlight.rawValue])
            var released = 0
            for row in inFlight {
                let holder: String? = row["holder"]
                guard everyKey || holder.map({ !isAlive($0) }) ?? true else { continue }
                let owner: String = row["owner"], key: String = row["key"]
                try db.execute(sql: "DELETE FROM idempotencyKey WHERE owner = ? AND key = ? AND state = ?",
                               arguments: [owner, key, IdempotencyKeyRecord.State.inFlight.rawValue])
                released += db.changesCount
            }
            return released
        }
    }

    /// Deletes answered keys older than `retention` and, with `includingInFlight`, every
    /// in-flight key. Returns how many were removed.
    @discardableResult
    public func expireIdempotencyKeys(now: Date, retention: TimeInterval, includingInFlight: Bool) throws -> Int {
        try engine.write(Self.expireIdempotencyKeysQuery(now: now, retention: retention, includingInFlight: includingInFlight))
    }

    /// `expireIdempotencyKeys` from async code: suspends on GRDB's async write instead of blocking a thread of the cooperative pool.
    @discardableResult
    public func expireIdempotencyKeys(now: Date, retention: TimeInterval, includingInFlight: Bool) async throws -> Int {
        try await engine.write(Self.expireIdempotencyKeysQuery(now: now, retention: retention, includingInFlight: includingInFlight))
    }

    /// The transaction of `expireIdempotencyKeys`, shared by its synchronous and async forms.
    static func expireIdempotencyKeysQuery(now: Date, retention: TimeInterval, includingInFlight: Bool) -> @Sendable (SQLSession) throws -> Int {
        { db in
            try db.execute(sql: "DELETE FROM idempotencyKey WHERE createdAt < ? OR (? = 1 AND state = ?)",
                           arguments: [now.addingTimeInterval(-retention), includingInFlight, IdempotencyKeyRecord.State.inFlight.rawValue])
            return db.changesCount
        }
    }
}
