import Foundation
import GRDB
import TilawaCore

/// SCIM provisioning (DESIGN §16): the identity provider creates, changes, deactivates and
/// deletes the students and coaches it knows, each one transaction with everything it implies.
extension AppDatabase {
    /// The migration "scim: provisioned users": one row per provisioned student or coach, keyed
    /// like their own row (role, id), its `subject` (the provider's `userName`) one person's.
    /// Never edited once landed.
    static func migrateSCIMUsers(_ db: Database) throws {
        try db.create(table: "scimUser") { t in
            t.column("role", .text).notNull()
            t.column("id", .text).notNull()
            t.column("subject", .text).notNull()
            t.column("externalId", .text)
            t.column("name", .text)
            t.column("displayName", .text)
            t.column("emails", .text)
            t.column("active", .boolean)
            t.column("version", .integer).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("lastModified", .datetime).notNull()
            t.column("deletedAt", .datetime)
            t.column("pausedEnrolmentId", .integer)
            t.primaryKey(["role", "id"])
        }
        try db.create(index: "scimUser_subject", on: "scimUser", columns: ["subject"], unique: true)
        try db.create(index: "scimUser_externalId", on: "scimUser", columns: ["externalId"])
    }

    /// The provisioned user `id`, nil when there is none (or it was deleted).
    public func scimUser(id: String) async throws -> SCIMUser? {
        try await engine.read { db in try Self.scimUser(db, id: id) }
    }

    static func scimUser(_ db: SQLSession, id: String) throws -> SCIMUser? {
        try Row.fetchOne(db, sql: "SELECT * FROM scimUser WHERE id = ? AND deletedAt IS NULL ORDER BY role", arguments: [id])
            .map(SCIMUser.init(row:))
    }

    /// Provisions a user (`POST /Users`) in one transaction. A student is the one whose
    /// `subject` is the `userName` (a roster's row, linked), or else a new student awaiting
    /// placement (`P` and six digits, enrolled pending in the semester running or next); a
    /// coach is always the programme file's (by `subject`, or by id when they have none). A user
    /// deleted earlier is provisioned again as the same person (the userName is their sign-in
    /// subject still): a student the deletion paused is resumed. `active: false` signs them out
    /// everywhere and pauses at once.
    public func createSCIMUser(_ draft: SCIMUserDraft, defaultRole: Device.Owner, by actor: String, policy: ProgramPolicy,
                               now: Date) async throws -> Result<SCIMUser, SCIMRefusal> {
        try await immediateWrite { db in try Self.createSCIMUser(db, draft, defaultRole: defaultRole, by: actor, policy: policy, now: now) }
    }

    static func createSCIMUser(_ db: SQLSession, _ draft: SCIMUserDraft, defaultRole: Device.Owner, by actor: String,
                               policy: ProgramPolicy, now: Date) throws -> Result<SCIMUser, SCIMRefusal> {
        let owner = draft.owner ?? defaultRole
        let subject = draft.userName
        // userName is not case-exact (RFC 7643 §4.1.1): "Alice@x" is taken when "alice@x" is, as a filter finds either.
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM scimUser WHERE lower(subject) = ? AND deletedAt IS NULL)",
                             arguments: [Self.asciiLowercased(subject)]) == true {
            return .failure(.userNameTaken(subject))
        }
        let linked: String?
        switch try provisionedPerson(db, owner: owner, subject: subject) {
        case let .failure(refusal): return .failure(refusal)
        case let .success(found): linked = found
        }
        let id: String
        if let linked {
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM scimUser WHERE id = ? AND deletedAt IS NULL)", arguments: [linked]) == true {
                return .failure(.alreadyProvisioned("\(owner.rawValue) \(linked)"))
            }
            id = linked
            if owner == .student {
                try db.execute(sql: "UPDATE student SET subject = ? WHERE id = ? AND subject IS NULL", arguments: [subject, id])
            }
            // SCIM names the person: the provider's name wins over the roster's.
            if owner == .student, let personName = draft.personName {
                try db.execute(sql: "UPDATE student SET name = ? WHERE id = ?", arguments: [personName, id])
            }
        } else {
            id = try nextProvisionedStudentId(db)
            var student = StudentRecord(id: id, name: draft.personName ?? subject)
            student.subject = subject
            let record = student
            try record.insert(db)
            try enrolAwaitingPlacement(db, studentId: id, by: actor, now: now)
        }
        // A deleted user of this person is provisioned again. A deleted one of this subject that
        // was someone else's keeps its row: the subject is unique among users that exist only.
        let previous = try Row.fetchOne(db, sql: "SELECT version, pausedEnrolmentId FROM scimUser WHERE role = ? AND id = ?",
                                        arguments: [owner.rawValue, id])
        var version = 1
        var paused: Int64?
        if let previous {
            version = (previous["version"] as Int) + 1
            paused = previous["pausedEnrolmentId"]
        }
        if !draft.isActive {
            paused = try deprovision(db, owner: owner, id: id, by: actor, reason: Self.deactivatedReason, policy: policy, now: now) ?? paused
        } else if previous != nil {
            try reprovision(db, owner: owner, id: id, paused: paused, by: actor, policy: policy, now: now)
            paused = nil
        }
        if previous == nil {
            try db.execute(sql: """
                INSERT INTO scimUser (role, id, subject, externalId, name, displayName, emails, active, version, createdAt, lastModified,
                                      deletedAt, pausedEnrolmentId)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
                """, arguments: [owner.rawValue, id, subject, draft.externalId, draft.name, draft.displayName, draft.emails, draft.active,
                                 version, now, now, paused])
        } else {
            try db.execute(sql: """
                UPDATE scimUser SET subject = ?, externalId = ?, name = ?, displayName = ?, emails = ?, active = ?, version = ?,
                    createdAt = ?, lastModified = ?, deletedAt = NULL, pausedEnrolmentId = ?
                WHERE role = ? AND id = ?
                """, arguments: [subject, draft.externalId, draft.name, draft.displayName, draft.emails, draft.active, version, now, now, paused,
                                 owner.rawValue, id])
        }
        try saveSCIMEmails(db, role: owner.rawValue, id: id, emails: draft.emails)
        return .success(try provisionedUser(db, owner: owner, id: id))
    }

    /// Changes a provisioned user (`PUT`, `PATCH`) in one transaction: `change` gets the user as
    /// stored and gives what it becomes (run inside the transaction, so a PATCH applies to what
    /// is there; it may run again on PostgreSQL, so it only computes). With `ifMatch`, a version
    /// not among them changes nothing (412). A student's new `userName` becomes their subject; a
    /// coach's cannot move. The userName of a deleted user is free (RFC 7644 §3.6: a deleted
    /// resource no longer exists): the deleted student lets that subject go, keeping their row,
    /// history and pause, and the tokens issued for it before it moved are refused. An erased
    /// student's subject stays refused. `active` turning false signs them out everywhere and
    /// pauses a student's running enrolment; turning true again resumes what that paused.
    public func updateSCIMUser(id: String, ifMatch: [Int]?, by actor: String, policy: ProgramPolicy, now: Date,
                               _ change: @escaping @Sendable (SCIMUser) throws -> SCIMUserDraft) async throws -> Result<SCIMUser, SCIMRefusal> {
        try await immediateWrite { db in
            try Self.updateSCIMUser(db, id: id, ifMatch: ifMatch, by: actor, policy: policy, now: now, change)
        }
    }

    static func updateSCIMUser(_ db: SQLSession, id: String, ifMatch: [Int]?, by actor: String, policy: ProgramPolicy, now: Date,
                               _ change: (SCIMUser) throws -> SCIMUserDraft) throws -> Result<SCIMUser, SCIMRefusal> {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM scimUser WHERE id = ? AND deletedAt IS NULL ORDER BY role", arguments: [id]) else {
            return .failure(.notFound)
        }
        let user = try SCIMUser(row: row)
        if let ifMatch, !ifMatch.contains(user.version) { return .failure(.versionMismatch(current: user.version)) }
        let draft = try change(user)
        if let asked = draft.owner, asked != user.owner { return .failure(.roleChange(from: user.owner, to: asked)) }
        if draft.userName != user.userName {
            if user.owner == .coach { return .failure(.coachUserName(user.userName)) }
            if try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM scimUser WHERE lower(subject) = ? AND deletedAt IS NULL AND NOT (role = ? AND id = ?))
                """, arguments: [Self.asciiLowercased(draft.userName), user.owner.rawValue, user.id]) == true {
                return .failure(.userNameTaken(draft.userName))
            }
            let released = try deletedStudent(db, subject: draft.userName, except: user.id)
            if released == nil, let holder = try subjectHolder(db, draft.userName, except: user.id) {
                return .failure(.subjectOfOther(holder))
            }
            if try isErasedSubject(db, draft.userName) { return .failure(.erasedSubject) }
            if let released {
                try db.execute(sql: "UPDATE student SET subject = NULL WHERE id = ?", arguments: [released])
                // A token for this subject issued before it moved was the deleted student's: it
                // never becomes this student's (their own earlier tokens named their old subject).
                let before = try Date.fetchOne(db, sql: "SELECT tokensValidAfter FROM student WHERE id = ?", arguments: [user.id])
                try db.execute(sql: "UPDATE student SET tokensValidAfter = ? WHERE id = ?", arguments: [max(before ?? now, now), user.id])
            }
            try db.execute(sql: "UPDATE student SET subject = ? WHERE id = ?", arguments: [draft.userName, user.id])
        }
        if user.owner == .student, let personName = draft.personName {
            try db.execute(sql: "UPDATE student SET name = ? WHERE id = ?", arguments: [personName, user.id])
        }
        var paused: Int64? = row["pausedEnrolmentId"]
        if user.isActive, !draft.isActive {
            paused = try deprovision(db, owner: user.owner, id: user.id, by: actor, reason: Self.deactivatedReason, policy: policy, now: now) ?? paused
        } else if !user.isActive, draft.isActive {
            try reprovision(db, owner: user.owner, id: user.id, paused: paused, by: actor, policy: policy, now: now)
            paused = nil
        }
        try db.execute(sql: """
            UPDATE scimUser SET subject = ?, externalId = ?, name = ?, displayName = ?, emails = ?, active = ?, version = version + 1,
                lastModified = ?, pausedEnrolmentId = ?
            WHERE role = ? AND id = ?
            """, arguments: [draft.userName, draft.externalId, draft.name, draft.displayName, draft.emails, draft.active, now, paused,
                             user.owner.rawValue, user.id])
        try saveSCIMEmails(db, role: user.owner.rawValue, id: user.id, emails: draft.emails)
        return .success(try provisionedUser(db, owner: user.owner, id: user.id))
    }

    /// Deletes a provisioned user (`DELETE`): as `active: false` — signed out everywhere, a
    /// student's running enrolment paused — and never an erasure (that stays an operator's act);
    /// the user is then unknown to SCIM. The student or coach keeps their row, history and
    /// subject, so a provider that provisions them again finds the same person; until then its
    /// userName is free for another user to take (`updateSCIMUser`). Answers the version the
    /// deletion made.
    public func deleteSCIMUser(id: String, ifMatch: [Int]?, by actor: String, policy: ProgramPolicy, now: Date) async throws
        -> Result<Int, SCIMRefusal>
    {
        try await immediateWrite { db in try Self.deleteSCIMUser(db, id: id, ifMatch: ifMatch, by: actor, policy: policy, now: now) }
    }

    static func deleteSCIMUser(_ db: SQLSession, id: String, ifMatch: [Int]?, by actor: String, policy: ProgramPolicy, now: Date) throws
        -> Result<Int, SCIMRefusal>
    {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM scimUser WHERE id = ? AND deletedAt IS NULL ORDER BY role", arguments: [id]) else {
            return .failure(.notFound)
        }
        let user = try SCIMUser(row: row)
        if let ifMatch, !ifMatch.contains(user.version) { return .failure(.versionMismatch(current: user.version)) }
        var paused: Int64? = row["pausedEnrolmentId"]
        paused = try deprovision(db, owner: user.owner, id: user.id, by: actor, reason: Self.deletedReason, policy: policy, now: now) ?? paused
        try db.execute(sql: """
            UPDATE scimUser SET deletedAt = ?, lastModified = ?, version = version + 1, pausedEnrolmentId = ? WHERE role = ? AND id = ?
            """, arguments: [now, now, paused, user.owner.rawValue, user.id])
        return .success(user.version + 1)
    }

    /// The provisioned users that meet every condition, oldest first: `limit` of them from
    /// `offset` on, and how many meet them in all.
    public func scimUsers(_ conditions: [SCIMUserCondition], offset: Int, limit: Int) async throws -> SCIMUserPage {
        try await engine.read { db in
            let (condition, arguments) = Self.scimUserFilter(conditions)
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scimUser WHERE \(condition)", arguments: arguments) ?? 0
            var page = arguments
            page += [max(0, limit), max(0, offset)]
            let users = try Row.fetchAll(db, sql: "SELECT * FROM scimUser WHERE \(condition) ORDER BY createdAt, role, id LIMIT ? OFFSET ?",
                                         arguments: page).map(SCIMUser.init(row:))
            return SCIMUserPage(total: total, users: users)
        }
    }

    /// SQL over `scimUser` for the users that exist and meet every condition, with its arguments.
    static func scimUserFilter(_ conditions: [SCIMUserCondition]) -> (sql: String, arguments: SQLArguments) {
        var clauses = ["scimUser.deletedAt IS NULL"]
        var arguments: SQLArguments = []
        for condition in conditions {
            switch condition {
            case let .userName(name):
                // ASCII case only, as both engines lower case (SQLite's lower(), PostgreSQL's on "C" text).
                clauses.append("lower(scimUser.subject) = ?")
                arguments += [asciiLowercased(name)]
            case let .externalId(value):
                clauses.append("scimUser.externalId = ?")
                arguments += [value]
            case let .id(value):
                clauses.append("scimUser.id = ?")
                arguments += [value]
            case let .active(flag):
                clauses.append("scimUser.active = ?")
                arguments += [flag]
            case let .email(comparisons):
                let email = emailCondition(comparisons)
                clauses.append(email.sql)
                arguments += email.arguments
            }
        }
        return (clauses.joined(separator: " AND "), arguments)
    }

    /// The user's row as it now is.
    static func provisionedUser(_ db: SQLSession, owner: Device.Owner, id: String) throws -> SCIMUser {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM scimUser WHERE role = ? AND id = ?", arguments: [owner.rawValue, id]) else {
            throw StoreError.internalInconsistency("the scimUser row of \(owner.rawValue) \(id) vanished in its own transaction")
        }
        return try SCIMUser(row: row)
    }

    /// The audit log's reasons for what the provider did.
    static let deactivatedReason = "deactivated by the identity provider (SCIM active: false)"
    static let deletedReason = "deleted by the identity provider (SCIM DELETE)"
    static let reactivatedReason = "reactivated by the identity provider (SCIM active: true)"

    /// `text` with A–Z lowered and every other byte kept: what SQLite's lower() and
    /// PostgreSQL's on "C" text both do.
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
