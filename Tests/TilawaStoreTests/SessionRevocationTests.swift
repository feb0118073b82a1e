import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// Sign-out everywhere in the store (issue 46), on both engines: one transaction records the
/// instant, removes the devices and ends a coach's desk sessions; what a token is checked against.
@Suite("Sign-out everywhere in the store: the instant, devices, desk sessions, audit, standing")
struct SessionRevocationTests {
    static let at = TestStore.newYork(2026, 9, 20)

    static func device(_ owner: Device.Owner, _ id: String, _ name: String, _ n: Int) -> Device {
        Device(owner: owner, ownerId: id, deviceId: name, platform: .ios, token: String(format: "%064x", n), environment: .production,
               locale: nil, appVersion: nil, registeredAt: at, updatedAt: at)
    }

    @Test("""
        a student: their devices go, another's stay, the instant is their standing and their subject's; a retry moves it on \
        and never back; a roster-style save of the record keeps it; an operator's is audited, the person's own is not
        """, arguments: TestEngine.all)
    func student(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        for (id, name, n) in [("S1001", "phone", 1), ("S1001", "tablet", 2), ("S1002", "phone", 3)] {
            _ = try await database.registerDevice(Self.device(.student, id, name, n))
        }
        try await database.engine.write { db in try db.execute(sql: "UPDATE student SET subject = 'auth0|aisha' WHERE id = 'S1001'") }
        #expect(try await database.tokenStanding(of: .student, id: "S1001") == TokenStanding(erased: false, tokensValidAfter: nil))

        guard case let .success(first) = try await database.revokeSessions(of: .student, id: "S1001", by: nil, reason: nil, now: Self.at) else {
            Issue.record("not revoked")
            return
        }
        #expect(first.revokedAt == Self.at && first.devicesRemoved == 2 && first.deskSessionsEnded == 0 && first.audit == nil)
        #expect(try await database.devices(owner: .student, ownerId: "S1001").isEmpty)
        #expect(try await database.devices(owner: .student, ownerId: "S1002").count == 1)
        #expect(try await database.tokenStanding(of: .student, id: "S1001") == TokenStanding(erased: false, tokensValidAfter: Self.at))
        #expect(try await database.tokenStanding(of: .student, id: "S1002").tokensValidAfter == nil)
        #expect(try await database.subjectOwnerStanding("auth0|aisha", subjectIsId: false)
                == SubjectOwner(role: "student", id: "S1001", tokensValidAfter: Self.at))

        // A roster import saves the whole record: the instant is not one of its columns.
        try await database.engine.write { db in
            var record = try #require(try StudentRecord.fetchOne(db, key: "S1001"))
            record.name = "Aisha R."
            try record.upsert(db)
        }
        #expect(try await database.tokenStanding(of: .student, id: "S1001").tokensValidAfter == Self.at)

        // An operator, later: audited; then a clock behind the instant does not move it back.
        guard case let .success(second) = try await database.revokeSessions(of: .student, id: "S1001", by: "amina", reason: "lost phone",
                                                                            now: Self.at + 60) else {
            Issue.record("not revoked again")
            return
        }
        let audit = try #require(second.audit)
        #expect(audit.action == "sessions_revoked" && audit.actor == "amina" && audit.reason == "lost phone" && audit.studentId == "S1001")
        #expect(second.revokedAt == Self.at + 60)
        guard case let .success(behind) = try await database.revokeSessions(of: .student, id: "S1001", by: nil, reason: nil, now: Self.at + 30) else {
            Issue.record("not revoked a third time")
            return
        }
        #expect(behind.revokedAt == Self.at + 60)
        #expect(try await database.tokenStanding(of: .student, id: "S1001").tokensValidAfter == Self.at + 60)
        let page = try await database.audit(AuditFilter(studentId: "S1001"), after: nil, limit: 10)
        #expect(page.entries.filter { $0.action == "sessions_revoked" }.count == 1, "only the operator's")
    }

    @Test("a coach: live desk sessions end (counted), unused login links are void, devices go; unknown and erased people are refused and nothing is written",
          arguments: TestEngine.all)
    func coachAndRefusals(engine: TestEngine) async throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let database = store.database
        _ = try await database.registerDevice(Self.device(.coach, "C01", "tablet", 1))
        for hash in ["session-a", "session-b"] {
            _ = try await database.startDeskSession(coachId: "C01", sessionHash: hash, csrfToken: "csrf", lifetime: 86_400, now: Self.at)
        }
        _ = try await database.startDeskSession(coachId: "C02", sessionHash: "session-c", csrfToken: "csrf", lifetime: 86_400, now: Self.at)
        #expect(try await database.createLoginLink(coachId: "C01", secretHash: "link-a", now: Self.at, expiresAt: Self.at + 900))

        guard case let .success(done) = try await database.revokeSessions(of: .coach, id: "C01", by: "amina", reason: "left the programme",
                                                                          now: Self.at + 10) else {
            Issue.record("not revoked")
            return
        }
        #expect(done.deskSessionsEnded == 2 && done.devicesRemoved == 1 && done.audit?.coachId == "C01")
        for hash in ["session-a", "session-b"] {
            #expect(try await database.deskSession(sessionHash: hash, lifetime: 86_400, maxLifetime: 86_400 * 30, now: Self.at + 20) == nil)
        }
        #expect(try await database.deskSession(sessionHash: "session-c", lifetime: 86_400, maxLifetime: 86_400 * 30, now: Self.at + 20) != nil,
                "another coach's session stays")
        let exchanged = try await database.exchangeLoginLink(linkHash: "link-a", sessionHash: "session-d", csrfToken: "csrf", lifetime: 86_400,
                                                             now: Self.at + 20)
        #expect(exchanged == .failure(.unknown), "the unused link is void")
        #expect(try await database.tokenStanding(of: .coach, id: "C01") == TokenStanding(erased: false, tokensValidAfter: Self.at + 10))
        #expect(try await database.tokenStanding(of: .coach, id: "C02").tokensValidAfter == nil)

        #expect(try await database.revokeSessions(of: .coach, id: "C99", by: nil, reason: nil, now: Self.at) == .failure(.unknownCoach("C99")))
        #expect(try await database.revokeSessions(of: .student, id: "S9999", by: nil, reason: nil, now: Self.at) == .failure(.unknownStudent("S9999")))
        guard case .success = try await database.erase(studentId: "S1002", force: true, by: "amina", reason: "asked", now: Self.at) else {
            Issue.record("not erased")
            return
        }
        #expect(try await database.tokenStanding(of: .student, id: "S1002").erased)
        #expect(try await database.revokeSessions(of: .student, id: "S1002", by: "amina", reason: "x", now: Self.at + 30)
                == .failure(.unknownStudent("S1002")))
        // The erasure's own instant (tokens from before it stay refused if the id is admitted again); the refusal wrote nothing.
        #expect(try await database.tokenStanding(of: .student, id: "S1002").tokensValidAfter.map { abs($0.timeIntervalSince(Self.at)) < 1 } == true)
    }
}
