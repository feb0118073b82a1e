import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// `tilawa token revoke` (issue 46, sign-out everywhere) through the real binary, on the run's
/// engine: the instant and the audit row stored, the devices and desk sessions gone.
@Suite("tilawa token revoke", .heavy)
struct TokenRevokeCommandTests {
    static let now = "2026-11-22 15:00:00"
    static let instant = Date(timeIntervalSince1970: 1_795_359_600)

    @Test("signs a student and a coach out everywhere with one line each and an audit row; 77 for an unknown or erased person, 64 for bad usage")
    func revoke() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        // A phone of S1001's and a desk session of C01's, as the daemon stores them.
        try state.write { db in
            try db.execute(sql: """
                INSERT INTO device (ownerKind, ownerId, deviceId, platform, token, environment, registeredAt, updatedAt)
                VALUES ('student', 'S1001', 'phone', 'ios', ?, 'production', ?, ?)
                """, arguments: [String(repeating: "ab", count: 32), Self.instant, Self.instant])
            try db.execute(sql: """
                INSERT INTO deskSession (secretHash, coachId, csrfToken, createdAt, lastSeenAt, expiresAt) VALUES ('hash', 'C01', 'csrf', ?, ?, ?)
                """, arguments: [Self.instant, Self.instant, Self.instant.addingTimeInterval(86_400)])
        }

        let student = try await state.run(["token", "revoke", "--student", "S1001", "--reason", "Lost phone", "--by", "amina"], at: Self.now)
        #expect(student.status == 0, "\(student.stderr)")
        #expect(student.stdout == "student S1001 signed out everywhere at 2026-11-22T15:00:00Z: 1 device removed\n")
        let coach = try await state.run(["token", "revoke", "--coach", "C01", "--json"], at: Self.now)
        #expect(coach.status == 0, "\(coach.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(coach.stdout.utf8)) as? [String: Any])
        #expect(summary["coach_id"] as? String == "C01" && summary["desk_sessions_ended"] as? Int == 1 && summary["devices_removed"] as? Int == 0)
        #expect(summary["revoked_at"] as? String == "2026-11-22T15:00:00Z")

        let (studentAfter, coachAfter, devices, sessions) = try state.read { db -> (Date?, Date?, Int, Int) in
            let studentInstant = try Date.fetchOne(db, sql: "SELECT tokensValidAfter FROM student WHERE id = 'S1001'")
            let coachInstant = try Date.fetchOne(db, sql: "SELECT tokensValidAfter FROM coach WHERE id = 'C01'")
            let deviceCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device") ?? -1
            let sessionCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deskSession") ?? -1
            return (studentInstant, coachInstant, deviceCount, sessionCount)
        }
        #expect(studentAfter == Self.instant && coachAfter == Self.instant && devices == 0 && sessions == 0)
        let audits = try state.read { db in
            try Row.fetchAll(db, sql: "SELECT actor, reason, studentId, coachId FROM audit WHERE action = 'sessions_revoked' ORDER BY id")
                .map { row -> [String] in
                    let studentId: String? = row["studentId"]
                    let coachId: String? = row["coachId"]
                    return [row["actor"], row["reason"], studentId ?? coachId ?? ""]
                }
        }
        #expect(audits.count == 2)
        #expect(audits.first == ["amina", "Lost phone", "S1001"])
        #expect(audits.last?[1] == "signed out everywhere with tilawa token revoke (no reason given)" && audits.last?[2] == "C01")

        for (arguments, code) in [(["--student", "S9999"], "unknown_student"), (["--coach", "C99"], "unknown_coach")] {
            let refused = try await state.run(["token", "revoke"] + arguments, at: Self.now)
            #expect(refused.status == 77 && refused.stderr.hasPrefix("tilawa: \(code): "), "\(arguments): \(refused.stderr)")
        }
        let erased = try await state.run(["erase", "--student", "S1011", "--confirm", "--force", "--reason", "Asked", "--by", "amina"], at: Self.now)
        #expect(erased.status == 0, "\(erased.stderr)")
        #expect(try await state.run(["token", "revoke", "--student", "S1011"], at: Self.now).status == 77)
        for arguments in [[], ["--student", "S1001", "--coach", "C01"], ["--student", "../etc"], ["--student", "S1001", "--reason", " "],
                          ["--coach", "C01", "--by", "two words"]] {
            let usage = try await state.run(["token", "revoke"] + arguments, at: Self.now)
            #expect(usage.status == 64 && usage.stdout.isEmpty, "\(arguments): \(usage.stderr)")
        }
    }
}
