import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Provisioned users in the store (issue 46), on both engines: a filter on email is a lookup by
/// the normalised email (`scimUserEmail`), with the results and paging the routes' own
/// comparison gave; a deleted user's userName is free for another user, an erased student's not.
@Suite("SCIM users in the store: email filters by index on both engines, the userName of a deleted user free, an erased one's not")
struct SCIMStoreTests {
    static let at = TestStore.newYork(2026, 9, 20)

    static func draft(_ userName: String, emails: String?) -> SCIMUserDraft {
        SCIMUserDraft(owner: .student, userName: userName, externalId: nil, name: nil, displayName: nil, emails: emails, active: true,
                      personName: nil)
    }

    /// Provisions `userName` with `emails` (JSON as the routes write it), `seconds` after `at`: the student's id.
    static func provision(_ database: AppDatabase, _ userName: String, _ emails: String?, after seconds: TimeInterval) async throws -> String {
        switch try await database.createSCIMUser(draft(userName, emails: emails), defaultRole: .student, by: AppDatabase.scimActor,
                                                 policy: ProgramPolicy(), now: at + seconds) {
        case let .success(user): return user.id
        case let .failure(refusal): throw refusal
        }
    }

    /// The ids of the users one of whose emails meets every comparison, and how many there are in all.
    static func matching(_ database: AppDatabase, _ comparisons: [SCIMEmailComparison], offset: Int = 0, limit: Int = 50) async throws
        -> (total: Int, ids: [String])
    {
        let page = try await database.scimUsers([.email(comparisons)], offset: offset, limit: limit)
        return (page.total, page.users.map(\.id))
    }

    @Test("""
        an email filter: the value without regard to case (Unicode's, canonically equivalent text equal), the value filter's type, \
        display and primary on the same email, never a part of an address; paging and totals as for any filter; a change, a \
        deletion and an erasure take the user's emails with them; on SQLite the plan looks the email up by its index
        """, arguments: TestEngine.all)
    func emailLookup(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        let maryam = try await Self.provision(database, "idp|maryam", """
            [{"primary":true,"type":"work","value":"Maryam@Example.org"},{"type":"home","value":"m.saleh@example.net"}]
            """, after: 0)
        let elodie = try await Self.provision(database, "idp|elodie", #"[{"display":"Élodie D.","type":"work","value":"Élodie@exemple.fr"}]"#,
                                              after: 1)
        _ = try await Self.provision(database, "idp|none", nil, after: 2)

        let cases: [([SCIMEmailComparison], [String], Comment)] = [
            ([.value("MARYAM@example.ORG")], [maryam], "the value, ASCII case aside"),
            ([.type("WORK"), .value("maryam@example.org")], [maryam], "type and value on one email"),
            ([.type("work"), .value("m.saleh@example.net")], [], "the work type and the home address are two emails"),
            ([.type("home"), .value("M.Saleh@example.net")], [maryam], "the home email"),
            ([.primary(true), .value("maryam@example.org")], [maryam], "primary"),
            ([.primary(false), .value("m.saleh@example.net")], [], "an email without primary is not primary false"),
            ([.unmet, .value("maryam@example.org")], [], "a comparison no email meets"),
            ([.value("maryam@example")], [], "a part of an address is not the address"),
            ([.value("%")], [], "LIKE's wildcards are text"),
            ([.value("élodie@EXEMPLE.FR")], [elodie], "Unicode's case"),
            ([.value("E\u{301}LODIE@exemple.fr")], [elodie], "a decomposed é is the same text"),
            ([.display("élodie d."), .value("elodie@exemple.fr")], [], "é is not e"),
            ([.display("ÉLODIE D."), .value("élodie@exemple.fr")], [elodie], "display"),
        ]
        for (comparisons, expected, why) in cases {
            let found = try await Self.matching(database, comparisons)
            #expect(found.ids == expected && found.total == expected.count, why)
        }

        var shared: [String] = []
        for number in 1...5 {
            shared.append(try await Self.provision(database, "idp|shared-\(number)", #"[{"type":"work","value":"Shared@Example.org"}]"#,
                                                   after: 10 + Double(number)))
        }
        let page = try await Self.matching(database, [.type("work"), .value("shared@example.org")], offset: 1, limit: 2)
        #expect(page.total == 5 && page.ids == Array(shared[1...2]), "oldest first, from the offset: \(page)")
        #expect(try await Self.matching(database, [.value("shared@example.org")], offset: 5).ids.isEmpty)
        let narrowed = try await database.scimUsers([.userName("IDP|SHARED-3"), .email([.value("shared@example.org")])], offset: 0, limit: 10)
        #expect(narrowed.total == 1 && narrowed.users.map(\.id) == [shared[2]], "with the other conditions")

        let changed = try await database.updateSCIMUser(id: maryam, ifMatch: nil, by: AppDatabase.scimActor, policy: ProgramPolicy(),
                                                        now: Self.at + 60) { user in Self.draft(user.userName, emails: #"[{"value":"maryam@new.example"}]"#) }
        if case let .failure(refusal) = changed { Issue.record("\(refusal)") }
        #expect(try await Self.matching(database, [.value("maryam@example.org")]).ids.isEmpty, "the emails it had are gone")
        #expect(try await Self.matching(database, [.value("Maryam@New.Example")]).ids == [maryam])

        if case let .failure(refusal) = try await database.deleteSCIMUser(id: elodie, ifMatch: nil, by: AppDatabase.scimActor,
                                                                          policy: ProgramPolicy(), now: Self.at + 61) {
            Issue.record("\(refusal)")
        }
        #expect(try await Self.matching(database, [.value("élodie@exemple.fr")]).ids.isEmpty, "a deleted user is not found")

        guard case .success = try await database.erase(studentId: maryam, force: true, by: "amina", reason: "asked", now: Self.at + 62) else {
            Issue.record("not erased")
            return
        }
        let left = try await database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scimUserEmail WHERE id = ?", arguments: [maryam])
        }
        #expect(left == 0, "an erasure takes the emails with the user's row")

        if engine == .sqlite {
            let filter = AppDatabase.scimUserFilter([.email([.type("work"), .value("shared@example.org")])])
            let plan = try await database.engine.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM scimUser WHERE \(filter.sql) ORDER BY createdAt, role, id",
                                 arguments: filter.arguments).map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("scimUserEmail_value") }, "the email is looked up by its index: \(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN") && $0.replacingOccurrences(of: "scimUserEmail", with: "").contains("scimUser") },
                    "no user is read to find it: \(plan)")
        }
    }

    @Test("the migration fills the lookup from the emails of the users provisioned before it, deleted ones too")
    func migrationFillsLookup() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-scim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tilawa.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try AppDatabase.migrator.migrate(queue, upTo: "scim: provisioned users")
        let users: [(id: String, subject: String, emails: String, deletedAt: Date?)] = [
            ("P100001", "idp|aisha", #"[{"type":"work","value":"Aisha@Example.org"}]"#, nil),
            ("P100002", "idp|omar", #"[{"value":"omar@example.org"}]"#, Self.at),
        ]
        try await queue.write { db in
            for (id, subject, emails, deletedAt) in users {
                try db.execute(sql: """
                    INSERT INTO scimUser (role, id, subject, emails, active, version, createdAt, lastModified, deletedAt)
                    VALUES ('student', ?, ?, ?, 1, 1, ?, ?, ?)
                    """, arguments: [id, subject, emails, Self.at, Self.at, deletedAt])
            }
        }
        try queue.close()

        let database = try AppDatabase.open(path: path)
        #expect(try await Self.matching(database, [.type("WORK"), .value("aisha@example.org")]).ids == ["P100001"])
        #expect(try await Self.matching(database, [.value("omar@example.org")]).ids.isEmpty, "deleted: not listed")
        let rows = try await database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scimUserEmail") }
        #expect(rows == 2, "a deleted user's emails are kept with its row, as its emails text is")
    }

    @Test("""
        a deleted user's userName is free: another user takes it (the deleted student lets the subject go, keeps their row, history \
        and pause; tokens for it issued before the move are refused); an erased student's userName is refused on create and rename
        """, arguments: TestEngine.all)
    func deletedUserNameFree(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        let aisha = try await Self.provision(database, "idp|aisha", nil, after: 0)
        let omar = try await Self.provision(database, "idp|omar", nil, after: 1)
        if case let .failure(refusal) = try await database.deleteSCIMUser(id: aisha, ifMatch: nil, by: AppDatabase.scimActor,
                                                                          policy: ProgramPolicy(), now: Self.at + 10) {
            Issue.record("\(refusal)")
        }
        let renamed = try await database.updateSCIMUser(id: omar, ifMatch: nil, by: AppDatabase.scimActor, policy: ProgramPolicy(),
                                                        now: Self.at + 20) { _ in Self.draft("idp|aisha", emails: nil) }
        guard case let .success(user) = renamed else {
            Issue.record("the userName of a deleted user was refused: \(renamed)")
            return
        }
        #expect(user.id == omar && user.userName == "idp|aisha")
        #expect(try await database.subjectOwner("idp|aisha", subjectIsId: false)?.id == omar, "the subject signs in as the one who took it")
        #expect(try await database.tokenStanding(of: .student, id: omar).tokensValidAfter == Self.at + 20,
                "a token for the subject from before the move is not theirs")
        let (subject, kept, deleted) = try await database.engine.read { db in
            (try String.fetchOne(db, sql: "SELECT subject FROM student WHERE id = ?", arguments: [aisha]),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM student WHERE id = ? AND erasedAt IS NULL", arguments: [aisha]),
             try Bool.fetchOne(db, sql: "SELECT deletedAt IS NOT NULL FROM scimUser WHERE role = 'student' AND id = ?", arguments: [aisha]))
        }
        #expect(subject == nil && kept == 1 && deleted == true, "the deleted student keeps their row and their deleted user, not the subject")
        #expect(try await database.tokenStanding(of: .student, id: aisha).deprovisioned, "still deprovisioned")
        let listed = try await database.scimUsers([.userName("idp|aisha")], offset: 0, limit: 10)
        #expect(listed.users.map(\.id) == [omar])

        // An erased student's userName stays theirs: refused on create and on rename.
        let sara = try await Self.provision(database, "idp|sara", nil, after: 30)
        if case let .failure(refusal) = try await database.deleteSCIMUser(id: sara, ifMatch: nil, by: AppDatabase.scimActor,
                                                                          policy: ProgramPolicy(), now: Self.at + 31) {
            Issue.record("\(refusal)")
        }
        guard case .success = try await database.erase(studentId: sara, force: true, by: "amina", reason: "asked", now: Self.at + 32) else {
            Issue.record("not erased")
            return
        }
        let again = try await database.createSCIMUser(Self.draft("idp|sara", emails: nil), defaultRole: .student, by: AppDatabase.scimActor,
                                                      policy: ProgramPolicy(), now: Self.at + 40)
        #expect(again == .failure(.erasedSubject), "\(again)")
        let taken = try await database.updateSCIMUser(id: omar, ifMatch: nil, by: AppDatabase.scimActor, policy: ProgramPolicy(),
                                                      now: Self.at + 41) { _ in Self.draft("idp|sara", emails: nil) }
        #expect(taken == .failure(.erasedSubject), "\(taken)")
    }
}
