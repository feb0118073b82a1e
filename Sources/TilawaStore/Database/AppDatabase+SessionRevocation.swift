import Foundation
import GRDB
import TilawaCore

/// What signing a student or a coach out everywhere did (DESIGN §16).
public struct SessionRevocation: Sendable, Equatable {
    public var owner: Device.Owner
    public var id: String
    /// Every token issued at or before this instant's second is refused from now on.
    public var revokedAt: Date
    /// The phones that no longer get pushes.
    public var devicesRemoved: Int
    /// The coach's live desk sessions that ended (always 0 for a student, who has none).
    public var deskSessionsEnded: Int
    /// The audit row, when an operator did it.
    public var audit: AuditRecord?
}

/// How a token's student or coach stands now, read in one query when a token is verified.
public struct TokenStanding: Sendable, Equatable {
    /// The student was erased (and not re-admitted since): every token of theirs names no one.
    public var erased: Bool
    /// A token issued at or before this instant's second is refused (sign-out everywhere); nil
    /// when they never signed out everywhere.
    public var tokensValidAfter: Date?
    /// The identity provider deprovisioned them (SCIM `active: false` or `DELETE`): every token
    /// of theirs names no one until it turns them back on.
    public var deprovisioned: Bool

    public init(erased: Bool, tokensValidAfter: Date?, deprovisioned: Bool = false) {
        self.erased = erased
        self.tokensValidAfter = tokensValidAfter
        self.deprovisioned = deprovisioned
    }
}

extension AppDatabase {
    /// The migration "people: tokens valid after": the instant before which a student's or a
    /// coach's tokens are refused (sign-out everywhere). Never edited once landed.
    ///
    /// Not a member of `StudentRecord` or `CoachRecord` on purpose: a roster import upserts
    /// those whole, and must never hand back a signed-out token its validity.
    static func migrateTokensValidAfter(_ db: Database) throws {
        try db.alter(table: "student") { t in t.add(column: "tokensValidAfter", .datetime) }
        try db.alter(table: "coach") { t in t.add(column: "tokensValidAfter", .datetime) }
    }

    /// Signs `id` out everywhere in one transaction: their `tokensValidAfter` becomes `now`
    /// (never earlier than it was: a retry only moves it on), their registered devices are
    /// removed, and for a coach every desk session ends and their unused login links are void.
    /// With `actor` and `reason` (an operator's act) the audit log gets a `sessions_revoked` row.
    /// `unknown_student` for an unknown or erased student, `unknown_coach` for an unknown coach.
    public func revokeSessions(of owner: Device.Owner, id: String, by actor: String?, reason: String?, now: Date) async throws
        -> Result<SessionRevocation, BackOfficeRefusal>
    {
        try await immediateWrite { db in try Self.revokeSessions(db, of: owner, id: id, by: actor, reason: reason, now: now) }
    }

    /// `revokeSessions` for the command line.
    public func revokeSessionsNow(of owner: Device.Owner, id: String, by actor: String?, reason: String?, now: Date) throws
        -> Result<SessionRevocation, BackOfficeRefusal>
    {
        try immediateWrite { db in try Self.revokeSessions(db, of: owner, id: id, by: actor, reason: reason, now: now) }
    }

    static func revokeSessions(_ db: SQLSession, of owner: Device.Owner, id: String, by actor: String?, reason: String?, now: Date) throws
        -> Result<SessionRevocation, BackOfficeRefusal>
    {
        let table: String
        switch owner {
        case .student:
            guard try StudentRecord.exists(db, key: id), try !isErased(db, studentId: id) else { return .failure(.unknownStudent(id)) }
            table = "student"
        case .coach:
            guard try CoachRecord.exists(db, key: id) else { return .failure(.unknownCoach(id)) }
            table = "coach"
        }
        let before = try Date.fetchOne(db, sql: "SELECT tokensValidAfter FROM \(table) WHERE id = ?", arguments: [id])
        // A clock stepped back (another node's) must not give tokens refused already their validity back.
        let revokedAt = max(before ?? now, now)
        try db.execute(sql: "UPDATE \(table) SET tokensValidAfter = ? WHERE id = ?", arguments: [revokedAt, id])
        try db.execute(sql: "DELETE FROM device WHERE ownerKind = ? AND ownerId = ?", arguments: [owner.rawValue, id])
        let devicesRemoved = db.changesCount
        var sessionsEnded = 0
        if owner == .coach {
            sessionsEnded = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deskSession WHERE coachId = ? AND expiresAt > ?",
                                             arguments: [id, now]) ?? 0
            try db.execute(sql: "DELETE FROM deskSession WHERE coachId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM loginLink WHERE coachId = ? AND usedAt IS NULL", arguments: [id])
        }
        var audit: AuditRecord?
        if let actor, let reason {
            var beforeFields: [String: MessageValue]?
            if let before { beforeFields = ["tokens_valid_after": .instant(before)] }
            let draft = AuditDraft(
                action: "sessions_revoked", studentId: owner == .student ? id : nil, coachId: owner == .coach ? id : nil,
                before: beforeFields,
                after: ["tokens_valid_after": .instant(revokedAt), "devices_removed": .int(devicesRemoved),
                        "desk_sessions_ended": .int(sessionsEnded)])
            audit = try recordAudit(db, draft, actor: actor, reason: reason, at: now)
        }
        return .success(SessionRevocation(owner: owner, id: id, revokedAt: revokedAt, devicesRemoved: devicesRemoved,
                                          deskSessionsEnded: sessionsEnded, audit: audit))
    }

    /// How the student or coach `id` stands for a token of theirs, in one query: erased (a
    /// student), and their `tokensValidAfter`. An id with no row stands as never signed out.
    public func tokenStanding(of owner: Device.Owner, id: String) async throws -> TokenStanding {
        try await engine.read { db in
            switch owner {
            case .student:
                // An id erased and admitted again may be another person: the tokens issued
                // before the erasure stay refused (as if the erased student signed out then).
                guard let row = try Row.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM erasure WHERE studentId = ? AND readmittedAt IS NULL) AS erased,
                           (SELECT tokensValidAfter FROM student WHERE id = ?) AS validAfter,
                           (SELECT erasedAt FROM erasure WHERE studentId = ?) AS erasedAt
                    """, arguments: [id, id, id]) else { return TokenStanding(erased: false, tokensValidAfter: nil) }
                let instants = [row["validAfter"] as Date?, row["erasedAt"] as Date?].compactMap { $0 }
                return TokenStanding(erased: (row["erased"] as Bool?) ?? false, tokensValidAfter: instants.max(),
                                     deprovisioned: try Self.isDeprovisioned(db, role: "student", id: id))
            case .coach:
                return TokenStanding(erased: false,
                                     tokensValidAfter: try Date.fetchOne(db, sql: "SELECT tokensValidAfter FROM coach WHERE id = ?", arguments: [id]),
                                     deprovisioned: try Self.isDeprovisioned(db, role: "coach", id: id))
            }
        }
    }

    /// Whether the identity provider turned `role` `id` off (SCIM `active: false`, or deleted them).
    static func isDeprovisioned(_ db: SQLSession, role: String, id: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM scimUser WHERE role = ? AND id = ? AND (active = 0 OR deletedAt IS NOT NULL))",
                          arguments: [role, id]) ?? false
    }
}
