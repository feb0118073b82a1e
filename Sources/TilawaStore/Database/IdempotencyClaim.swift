import Foundation

/// An `Idempotency-Key` a request has claimed (in flight), handed to the operation that
/// creates what the request asks for, so that the key's answer is remembered in the very
/// transaction that creates it (`AppDatabase.rememberCreated`). Once that commits, a retry with
/// the key finds what was created — whatever happens to the request afterwards (its answer
/// failed to build, the database went away before the answer was stored, the process died) —
/// and can never create a second one.
public struct IdempotencyClaim: Sendable, Hashable {
    public var owner: IdempotencyOwner
    public var key: String
    /// The claimed request's hash (the slot and the content's SHA-256).
    public var requestHash: String

    public init(owner: IdempotencyOwner, key: String, requestHash: String) {
        self.owner = owner
        self.key = key
        self.requestHash = requestHash
    }
}

extension AppDatabase {
    /// The answer remembered for a request that created `id`: 201 with the id alone. A replay
    /// builds the whole answer from the record as it is then (`currentAnswer`).
    public static func createdAnswerBody(id: String) -> Data {
        Data(#"{"id":"\#(id)"}"#.utf8)
    }

    /// Inside the transaction that creates `id`: `claim`'s key is answered (201, `id`). An
    /// upsert: the claim's row is normally there, in flight; should it have gone meanwhile (its
    /// in-flight time ran out), the answer is recorded all the same.
    static func rememberCreated(_ db: SQLSession, claim: IdempotencyClaim?, id: String, now: Date) throws {
        guard let claim else { return }
        try db.execute(sql: """
            INSERT INTO idempotencyKey (owner, key, requestHash, state, responseStatus, responseBody, createdAt, holder)
            VALUES (?, ?, ?, ?, 201, ?, ?, ?)
            ON CONFLICT (owner, key) DO UPDATE SET state = excluded.state, responseStatus = excluded.responseStatus,
                responseBody = excluded.responseBody
            """, arguments: [claim.owner.storageValue, claim.key, claim.requestHash, IdempotencyKeyRecord.State.done.rawValue,
                             createdAnswerBody(id: id), now, processIdentity])
    }
}
