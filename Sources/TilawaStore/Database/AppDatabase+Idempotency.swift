import Foundation
import GRDB
import TilawaCore

/// What an `Idempotency-Key` has seen before (the protocol's own record type).
public typealias IdempotencyState = IdempotencyStateMachine.Record

extension AppDatabase {
    /// The state of `key` for `studentId`, treating keys older than `retention` as unused and
    /// in-flight keys older than `inFlightTimeout` as abandoned (their request died with a
    /// process), so a retry is never refused forever.
    public func idempotencyState(studentId: String, key: String, now: Date, retention: TimeInterval,
                                 inFlightTimeout: TimeInterval) throws -> IdempotencyState {
        try writer.write { db in
            guard let row = try IdempotencyKeyRecord.fetchOne(db, key: ["studentId": studentId, "key": key]) else { return .unused }
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
    public func claimIdempotencyKey(studentId: String, key: String, requestHash: String, now: Date, retention: TimeInterval,
                                    inFlightTimeout: TimeInterval) throws -> IdempotencyState {
        try writer.write { db in
            if let row = try IdempotencyKeyRecord.fetchOne(db, key: ["studentId": studentId, "key": key]) {
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
            try db.execute(sql: "INSERT INTO idempotencyKey (studentId, key, requestHash, state, createdAt) VALUES (?, ?, ?, ?, ?)",
                           arguments: [studentId, key, requestHash, IdempotencyKeyRecord.State.inFlight.rawValue, now])
            return .unused
        }
    }

    /// Stores the answer to replay for `key`.
    public func finishIdempotentRequest(studentId: String, key: String, status: Int, body: Data) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE idempotencyKey SET state = ?, responseStatus = ?, responseBody = ? WHERE studentId = ? AND key = ?",
                arguments: [IdempotencyKeyRecord.State.done.rawValue, status, body, studentId, key])
        }
    }

    /// Releases `key` without an answer (the request failed on our side): a retry runs anew.
    public func abandonIdempotentRequest(studentId: String, key: String) throws {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM idempotencyKey WHERE studentId = ? AND key = ?", arguments: [studentId, key])
        }
    }

    /// Deletes answered keys older than `retention` and every in-flight key (at start-up no
    /// request of this daemon is running). Returns how many were removed.
    @discardableResult
    public func expireIdempotencyKeys(now: Date, retention: TimeInterval, includingInFlight: Bool) throws -> Int {
        try writer.write { db in
            try db.execute(sql: "DELETE FROM idempotencyKey WHERE createdAt < ? OR (? AND state = ?)",
                           arguments: [now.addingTimeInterval(-retention), includingInFlight, IdempotencyKeyRecord.State.inFlight.rawValue])
            return db.changesCount
        }
    }
}
