import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// The back office on the command line (DESIGN §11): each action through the real binary,
/// its effect on the rules, the queue or the pairing, and its audit row. The clock stands on
/// Sunday 22 November 2026, 10:00 in New York (week 12 open, week 11's deadline passed).
@Suite("Back-office commands: student extend|grant|enrolment, feedback move, coach cover, audit", .heavy)
struct BackOfficeCommandTests {
    static let now = "2026-11-22 15:00:00"
    static let later = "2026-11-22 16:00:00"

    private func ingest(_ state: CommandLineStateFixture, _ student: String, week: Int, at time: String = now) async throws -> ProcessResult {
        try await state.run(["ingest", "--student", student, "--week", "\(week)", CommandLineStateFixture.fixture("speech.opus")], at: time)
    }

    private func reply(_ state: CommandLineStateFixture, coach: String, named name: String) async throws -> ProcessResult {
        let file = state.scratch.path(name)
        try? FileManager.default.removeItem(atPath: file)
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("speech.mp3"), toPath: file)
        return try await state.run(["feedback", "import", "--coach", coach, file], at: Self.later)
    }

    private func submission(_ state: CommandLineStateFixture, _ student: String, week: Int) throws -> String? {
        try state.read { db in
            try String.fetchOne(db, sql: "SELECT id FROM submission WHERE studentId = ? AND week = ? ORDER BY receivedAt DESC", arguments: [student, week])
        }
    }

    private static var unixUser: String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "uid:\(getuid())" }
        return String(cString: name)
    }

    @Test("Each action does what it says, writes its audit row, and refuses with a reason and an exit status")
    func everyAction() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }

        // A reply filed under the wrong student, moved to the right one.
        #expect(try await ingest(state, "S1001", week: 12).status == 0)
        #expect(try await ingest(state, "S1003", week: 12).status == 0)
        let imported = try await reply(state, coach: "C01", named: "S1001_w12.opus")
        #expect(imported.status == 0, "\(imported.stderr)")
        let feedbackId = try #require(try state.read { db in try String.fetchOne(db, sql: "SELECT id FROM feedback") })
        let right = try #require(try submission(state, "S1003", week: 12))
        let moved = try await state.run(["feedback", "move", feedbackId, "--to", right, "--reason", "Recorded for Zaynab", "--by", "amina", "--json"],
                                        at: Self.later)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.contains("\"action\" : \"feedback_moved\"") && moved.stdout.contains("\"actor\" : \"amina\""), "\(moved.stdout)")
        #expect(try state.read { db in try String.fetchOne(db, sql: "SELECT submissionId FROM feedback") } == right)

        // An extension: week 11 is on time again; the actor is the Unix user.
        let extended = try await state.run(["student", "extend", "S1002", "--week", "11", "--due-at", "2026-11-24T23:59:00-05:00",
                                            "--reason", "Ill with flu"], at: Self.now)
        #expect(extended.status == 0, "\(extended.stderr)")
        #expect(extended.stdout.contains(Self.unixUser) && extended.stdout.contains("deadline_extended"), "\(extended.stdout)")
        #expect(try await ingest(state, "S1002", week: 11).status == 0)
        #expect(try state.read { db in try Bool.fetchOne(db, sql: "SELECT late FROM submission WHERE studentId = 'S1002' AND week = 11") } == false)

        // A grant: used only once the two attempts are used.
        let granted = try await state.run(["student", "grant", "S1002", "--count", "1", "--expires-at", "2026-11-29T00:00:00Z",
                                           "--reason", "Family emergency"], at: Self.now)
        #expect(granted.status == 0, "\(granted.stderr)")
        #expect(try await ingest(state, "S1002", week: 12).status == 0)
        #expect(try state.read { db in try String.fetchOne(db, sql: "SELECT grantId FROM submission WHERE studentId = 'S1002' AND week = 12") } == nil)
        #expect(try await ingest(state, "S1002", week: 10).status == 0)
        #expect(try state.read { db in try String.fetchOne(db, sql: "SELECT grantId FROM submission WHERE studentId = 'S1002' AND week = 10") } != nil)
        #expect(try await ingest(state, "S1002", week: 9).status == 75, "the grant is used up: attempt_limit")

        // A pause: the student's uploads are refused.
        let paused = try await state.run(["student", "enrolment", "S1005", "--state", "paused", "--reason", "Travelling"], at: Self.now)
        #expect(paused.status == 0, "\(paused.stderr)")
        let refused = try await ingest(state, "S1005", week: 12)
        #expect(refused.status == 77 && refused.stderr.contains("enrolment_paused"), "\(refused.stderr)")

        // Cover: C02 may answer C03's student by the drop-folder name only while covering.
        #expect(try await ingest(state, "S1004", week: 12).status == 0)
        let stranger = try await reply(state, coach: "C02", named: "S1004_w12.opus")
        #expect(stranger.status == 77 && stranger.stderr.contains("not_assigned_coach"), "\(stranger.stderr)")
        let cover = try await state.run(["coach", "cover", "C03", "--covering-coach", "C02", "--until", "2026-11-25T00:00:00Z",
                                         "--reason", "On leave"], at: Self.now)
        #expect(cover.status == 0, "\(cover.stderr)")
        let covering = try await reply(state, coach: "C02", named: "S1004_w12.opus")
        #expect(covering.status == 0, "\(covering.stderr)")

        // The log: newest first, every action with its reason.
        let audit = try await state.run(["audit", "--json"], at: Self.later)
        #expect(audit.status == 0, "\(audit.stderr)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]])
        let actions = entries.compactMap { $0["action"] as? String }.filter { !["enrolled", "placed"].contains($0) }
        #expect(actions == ["feedback_moved", "cover_started", "enrolment_changed", "attempts_granted", "deadline_extended"], "\(actions)")
        let forS1002 = try await state.run(["audit", "--student", "S1002"], at: Self.later)
        #expect(forS1002.stdout.contains("\"Family emergency\"") && !forS1002.stdout.contains("On leave"), "\(forS1002.stdout)")

        // Refusals: a value out of range is 64, an unknown id or a conflict 77; nothing written.
        for (arguments, status, code) in [
            (["student", "grant", "S1002", "--count", "0", "--expires-at", "2026-11-29T00:00:00Z", "--reason", "x"], Int32(64), "invalid_count"),
            (["student", "extend", "S9999", "--week", "3", "--due-at", "2026-11-24T23:59:00-05:00", "--reason", "x"], 77, "unknown_student"),
            (["coach", "cover", "C03", "--covering-coach", "C03", "--until", "2026-11-25T00:00:00Z", "--reason", "x"], 64, "cover_self"),
            (["student", "enrolment", "S1005", "--state", "paused", "--reason", "x"], 77, "no_change"),
            (["feedback", "move", "fb_none", "--to", right, "--reason", "x"], 77, "unknown_feedback"),
        ] {
            let result = try await state.run(arguments, at: Self.later)
            #expect(result.status == status && result.stderr.hasPrefix("tilawa: \(code): "), "\(arguments): \(result.stderr)")
        }
        for arguments in [["student", "grant", "S1002", "--expires-at", "2026-11-29T00:00:00Z"],
                          ["student", "grant", "S1002", "--expires-at", "2026-11-29T00:00:00Z", "--reason", "  "],
                          ["student", "extend", "S1002", "--week", "11", "--due-at", "tuesday", "--reason", "x"],
                          ["student", "enrolment", "S1002", "--reason", "x"], ["audit", "--limit", "0"]] {
            #expect(try await state.run(arguments, at: Self.later).status == 64, "\(arguments)")
        }
        let count = try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audit") }
        #expect(count == 5)
    }
}
