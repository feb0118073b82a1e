import Foundation
import GRDB
import TilawaCore

/// Why a login link could not be exchanged for a session.
public enum LoginLinkRefusal: Error, Sendable, Equatable {
    /// No link has this secret (never issued, or mistyped).
    case unknown
    /// The link was exchanged already (single use).
    case used
    /// The link's 15 minutes have passed.
    case expired
    /// The coach it was issued for is no longer in the programme.
    case unknownCoach
}

/// A signed-in desk session as the HTTP layer needs it.
public struct DeskSession: Sendable, Equatable {
    /// The coach the session acts for.
    public let coachId: String
    /// The token every state-changing request made with the session's cookie must carry.
    public let csrfToken: String
    /// When the session ends unless used again (sliding), at most its absolute limit.
    public let expiresAt: Date
    /// Whether this use moved the end on (at most once an hour): the caller sends the cookie
    /// again with the new lifetime, so the browser keeps it as long as the server does.
    public var renewed = false
}

extension AppDatabase {
    /// Migration "desk: login links and sessions". Only hashes of the secrets are stored:
    /// a copy of the database (a backup) signs nobody in.
    static func migrateDeskSessions(_ db: Database) throws {
        try db.create(table: "loginLink") { t in
            t.primaryKey("secretHash", .text)
            t.column("coachId", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("expiresAt", .datetime).notNull()
            t.column("usedAt", .datetime)
        }
        try db.create(index: "loginLink_expiresAt", on: "loginLink", columns: ["expiresAt"])
        try db.create(table: "deskSession") { t in
            t.primaryKey("secretHash", .text)
            t.column("coachId", .text).notNull()
            t.column("csrfToken", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("lastSeenAt", .datetime).notNull()
            t.column("expiresAt", .datetime).notNull()
        }
        try db.create(index: "deskSession_coachId", on: "deskSession", columns: ["coachId"])
        try db.create(index: "deskSession_expiresAt", on: "deskSession", columns: ["expiresAt"])
    }

    /// Records a login link for `coachId` whose secret hashes to `secretHash`, valid until
    /// `expiresAt`. False when no such coach is in the programme.
    public func createLoginLink(coachId: String, secretHash: String, now: Date, expiresAt: Date) async throws -> Bool {
        try await engine.write { db in
            guard try Self.coachExistsQuery(id: coachId)(db), try !Self.isDeprovisioned(db, role: "coach", id: coachId) else { return false }
            try db.execute(sql: "DELETE FROM loginLink WHERE expiresAt < ?", arguments: [now.addingTimeInterval(-86_400)])
            try db.execute(sql: "INSERT INTO loginLink (secretHash, coachId, createdAt, expiresAt) VALUES (?, ?, ?, ?)",
                           arguments: [secretHash, coachId, now, expiresAt])
            return true
        }
    }

    /// Exchanges the link whose secret hashes to `linkHash` for a new session, in one
    /// transaction: the link is marked used (a second exchange, or a racing one, is refused
    /// `used`), and the session — its secret hashing to `sessionHash`, with `csrfToken` —
    /// lasts until `now + lifetime`.
    public func exchangeLoginLink(linkHash: String, sessionHash: String, csrfToken: String, lifetime: TimeInterval,
                                  now: Date) async throws -> Result<DeskSession, LoginLinkRefusal> {
        // A link never issued costs a read, not a write: junk sign-ins take no writer's turn.
        guard try await engine.read({ db in try Bool.fetchOne(db, sql: "SELECT 1 FROM loginLink WHERE secretHash = ?", arguments: [linkHash]) }) == true else {
            return .failure(.unknown)
        }
        return try await immediateWrite { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT coachId, expiresAt, usedAt FROM loginLink WHERE secretHash = ?",
                                             arguments: [linkHash]) else { return .failure(.unknown) }
            let coachId: String = row["coachId"]
            if (row["usedAt"] as Date?) != nil { return .failure(.used) }
            if (row["expiresAt"] as Date) <= now { return .failure(.expired) }
            try db.execute(sql: "UPDATE loginLink SET usedAt = ? WHERE secretHash = ?", arguments: [now, linkHash])
            // A coach the identity provider turned off (SCIM) signs in no more, by link or otherwise.
            guard try Self.coachExistsQuery(id: coachId)(db), try !Self.isDeprovisioned(db, role: "coach", id: coachId) else {
                return .failure(.unknownCoach)
            }
            let expiresAt = now.addingTimeInterval(lifetime)
            try db.execute(sql: """
                INSERT INTO deskSession (secretHash, coachId, csrfToken, createdAt, lastSeenAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [sessionHash, coachId, csrfToken, now, now, expiresAt])
            return .success(DeskSession(coachId: coachId, csrfToken: csrfToken, expiresAt: expiresAt))
        }
    }

    /// A new session for `coachId`, signed in by the identity provider (no link to spend): its
    /// secret hashing to `sessionHash`, with `csrfToken`, lasting until `now + lifetime`; nil
    /// when the coach is not in the programme.
    public func startDeskSession(coachId: String, sessionHash: String, csrfToken: String, lifetime: TimeInterval,
                                 now: Date) async throws -> DeskSession? {
        try await immediateWrite { db in
            guard try Self.coachExistsQuery(id: coachId)(db), try !Self.isDeprovisioned(db, role: "coach", id: coachId) else { return nil }
            let expiresAt = now.addingTimeInterval(lifetime)
            try db.execute(sql: """
                INSERT INTO deskSession (secretHash, coachId, csrfToken, createdAt, lastSeenAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [sessionHash, coachId, csrfToken, now, now, expiresAt])
            return DeskSession(coachId: coachId, csrfToken: csrfToken, expiresAt: expiresAt)
        }
    }

    /// The live session whose secret hashes to `sessionHash`, its end moved to `now +
    /// lifetime` but never past `createdAt + maxLifetime` (sliding, with an absolute limit;
    /// written at most once an hour, so a page's polling costs reads only, and the caller
    /// renews the cookie exactly when it is: `renewed`); nil for an unknown, ended or revoked
    /// session, or one whose coach is gone.
    public func deskSession(sessionHash: String, lifetime: TimeInterval, maxLifetime: TimeInterval, now: Date) async throws -> DeskSession? {
        let found = try await engine.read { db -> (DeskSession, lastSeen: Date, created: Date)? in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT s.coachId, s.csrfToken, s.expiresAt, s.lastSeenAt, s.createdAt FROM deskSession s JOIN coach c ON c.id = s.coachId
                WHERE s.secretHash = ? AND s.expiresAt > ?
                """, arguments: [sessionHash, now]) else { return nil }
            return (DeskSession(coachId: row["coachId"], csrfToken: row["csrfToken"], expiresAt: row["expiresAt"]), row["lastSeenAt"], row["createdAt"])
        }
        guard let (session, lastSeen, created) = found else { return nil }
        let expiresAt = min(now.addingTimeInterval(lifetime), created.addingTimeInterval(maxLifetime))
        guard now.timeIntervalSince(lastSeen) >= Self.deskSessionSlideInterval, expiresAt > session.expiresAt else { return session }
        try await engine.write { db in
            try db.execute(sql: "UPDATE deskSession SET lastSeenAt = ?, expiresAt = ? WHERE secretHash = ? AND expiresAt > ?",
                           arguments: [now, expiresAt, sessionHash, now])
        }
        var renewed = DeskSession(coachId: session.coachId, csrfToken: session.csrfToken, expiresAt: expiresAt)
        renewed.renewed = true
        return renewed
    }

    /// How often a session in use moves its end on (and its cookie is sent again).
    public static let deskSessionSlideInterval: TimeInterval = 3_600

    /// Ends the session whose secret hashes to `sessionHash` (sign-out).
    public func endDeskSession(sessionHash: String) async throws {
        try await engine.write { db in
            try db.execute(sql: "DELETE FROM deskSession WHERE secretHash = ?", arguments: [sessionHash])
        }
    }

    /// Ends every session of `coachId` and voids the coach's unused login links (`tilawa
    /// sessions revoke`); returns how many live sessions ended.
    @discardableResult
    public func revokeDeskSessions(coachId: String, now: Date) throws -> Int {
        try engine.write { db in
            let ended = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deskSession WHERE coachId = ? AND expiresAt > ?",
                                         arguments: [coachId, now]) ?? 0
            try db.execute(sql: "DELETE FROM deskSession WHERE coachId = ?", arguments: [coachId])
            try db.execute(sql: "DELETE FROM loginLink WHERE coachId = ? AND usedAt IS NULL", arguments: [coachId])
            return ended
        }
    }

    /// Deletes sessions and links past their end (housekeeping).
    public func deleteEndedDeskSessions(now: Date) async throws {
        try await engine.write { db in
            try db.execute(sql: "DELETE FROM deskSession WHERE expiresAt <= ?", arguments: [now])
            try db.execute(sql: "DELETE FROM loginLink WHERE expiresAt < ?", arguments: [now.addingTimeInterval(-86_400)])
        }
    }
}

extension AppDatabase {
    /// The coach's display name, nil when there is no such coach.
    public func coachName(id: String) async throws -> String? {
        try await engine.read { db in try String.fetchOne(db, sql: "SELECT name FROM coach WHERE id = ?", arguments: [id]) }
    }

    /// What the desk shows of its coach: the name, whether they place students, and — only for
    /// a placing coach — the levels (in the programme's order) and coaches a placement chooses
    /// from. Nil for a coach no longer in the programme.
    public func deskProfile(coachId: String) async throws -> DeskProfile? {
        try await engine.read { db in
            guard let coach = try CoachRecord.fetchOne(db, key: coachId) else { return nil }
            guard try Self.mayPlace(db, coachId: coachId) else {
                return DeskProfile(name: coach.name, places: false, levels: [], coaches: [])
            }
            let levels = try Row.fetchAll(db, sql: "SELECT id, name FROM level ORDER BY position, id")
                .map { DeskProfile.Choice(id: $0["id"], name: $0["name"]) }
            let coaches = try Row.fetchAll(db, sql: "SELECT id, name FROM coach ORDER BY name, id")
                .map { DeskProfile.Choice(id: $0["id"], name: $0["name"]) }
            return DeskProfile(name: coach.name, places: true, levels: levels, coaches: coaches)
        }
    }
}

/// The desk's view of its coach (`AppDatabase.deskProfile`).
public struct DeskProfile: Sendable, Equatable {
    /// A level or a coach to choose in a placement.
    public struct Choice: Sendable, Equatable, Encodable {
        public var id: String
        public var name: String
    }

    public var name: String
    public var places: Bool
    public var levels: [Choice]
    public var coaches: [Choice]
}

extension AppDatabase {
    /// What a coach's request for a new login link did. The page answers every request alike
    /// (it never says whether a coach matched); this is for the log and the tests.
    public enum DeskLinkRequest: Sendable, Equatable {
        /// A link was recorded and `desk_link_requested` queued for `coachId` (event `eventId`).
        case queued(coachId: String, eventId: String)
        /// No coach has that id or roster email.
        case unknownCoach
        /// One was queued for that coach less than the interval ago.
        case tooSoon(coachId: String)
    }

    /// A request for a new login link by `who` — a coach's id, or the email on their roster
    /// row (any case). In one transaction: the link's secret hash is recorded (valid until
    /// `expiresAt`, once) and `desk_link_requested`, carrying the link `url(coachId)`, is queued
    /// for that coach (never for a coach covering them); unless no coach matches, or one was
    /// queued for them within `interval` (a page anyone can post to must not flood a coach's
    /// organisation with links).
    public func requestDeskLink(who: String, secretHash: String, url: @escaping @Sendable (String) -> String, now: Date,
                                expiresAt: Date, interval: TimeInterval) async throws -> DeskLinkRequest {
        try await engine.write { db in
            let query = who.trimmingCharacters(in: .whitespaces)
            guard !query.isEmpty, query.utf8.count <= 254,
                  let coach = try CoachRecord.fetchOne(db, key: query)
                    ?? CoachRecord.fetchOne(db, sql: "SELECT * FROM coach WHERE lower(email) = lower(?) ORDER BY id LIMIT 1", arguments: [query])
            else { return .unknownCoach }
            // Turned off by the identity provider: answered as for no coach (the page says the same either way).
            if try Self.isDeprovisioned(db, role: "coach", id: coach.id) { return .unknownCoach }
            let last = try Date.fetchOne(db, sql: "SELECT MAX(occurredAt) FROM event WHERE queue = ? AND type = ?",
                                         arguments: ["coach:\(coach.id)", EventType.deskLinkRequested.rawValue])
            if let last, now.timeIntervalSince(last) < interval { return .tooSoon(coachId: coach.id) }
            try db.execute(sql: "INSERT INTO loginLink (secretHash, coachId, createdAt, expiresAt) VALUES (?, ?, ?, ?)",
                           arguments: [secretHash, coach.id, now, expiresAt])
            let id = try Self.recordStaffEvent(
                db, type: .deskLinkRequested, occurredAt: now,
                message: StaffMessages.deskLinkRequested(expiresAt: expiresAt, zone: try Self.programmeZone(db)),
                link: .coachQueue,
                extra: EventPayload.Extra(deskLink: EventPayload.DeskLink(coachId: coach.id, url: url(coach.id), expiresAt: expiresAt, email: coach.email)),
                recipient: .coach(coach.id))
            return .queued(coachId: coach.id, eventId: id)
        }
    }
}
