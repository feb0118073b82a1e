import Foundation
import GRDB
import Testing
import TilawaCore
import TilawaStore
import TilawaTestSupport

@Suite("tilawa placement set, and a placement assessment after the semester", .heavy)
struct PlacementCommandTests {
    @Test("an unplaced student records the assessment after fall closed (0), a placing coach who is not yet theirs places them; placement_ready names level and coach")
    func placeFromTheCommandLine() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        // Fall 2026 closed on 2 January 2027; S1011 (config/students.csv) awaits placement in fall.
        let afterFall = "2027-01-05 15:00:00"
        let weekly = try await state.run(["ingest", "--student", "S1011", "--week", "1", CommandLineStateFixture.fixture("speech.opus")], at: afterFall)
        #expect(weekly.status == 77 && weekly.stderr.hasPrefix("tilawa: not_placed: We're reviewing your assessment"))
        let assessment = try await state.run(["ingest", "--student", "S1011", "--week", "assessment", "--json",
                                              CommandLineStateFixture.fixture("speech.opus")], at: afterFall)
        #expect(assessment.status == 0, "\(assessment.stderr)")
        #expect(assessment.stdout.contains("\"kind\" : \"assessment\""))

        // C02 does not place students (C01 is the sample's placing coach).
        let notPlacing = try await state.run(["placement", "set", "S1011", "--level", "L1", "--coach", "C02", "--semester", "spring-2027",
                                              "--by", "C02"], at: afterFall)
        #expect(notPlacing.status == 77 && notPlacing.stderr.hasPrefix("tilawa: not_placing_coach: "))
        let closed = try await state.run(["placement", "set", "S1011", "--level", "L1", "--coach", "C02", "--semester", "fall-2026",
                                          "--by", "C01"], at: afterFall)
        #expect(closed.status == 77 && closed.stderr.hasPrefix("tilawa: semester_closed: "))
        #expect(try await state.run(["placement", "set", "S1011", "--level", "L1", "--coach", "bad id"], at: afterFall).status == 64)

        // C01 places S1011 at L1 with C02 for spring.
        let placed = try await state.run(["placement", "set", "S1011", "--level", "L1", "--coach", "C02", "--semester", "spring-2027",
                                          "--by", "C01", "--json"], at: afterFall)
        #expect(placed.status == 0, "\(placed.stderr)")
        #expect(placed.stdout.contains("\"placed_by\" : \"coach:C01\""))
        let payload = try #require(try state.read { db in
            try Data.fetchOne(db, sql: "SELECT payload FROM event WHERE studentId = 'S1011' AND type = 'placement_ready'")
        })
        let event = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        #expect(event["message"] as? String == "You've been placed in Foundations; your coach is Ustadh Yusuf Rahman.")
        let extra = try #require(event["extra"] as? [String: Any])
        #expect((extra["level"] as? [String: Any])?["id"] as? String == "L1")
        #expect((extra["coach"] as? [String: Any])?["id"] as? String == "C02")
        // Spring's week 1 is now theirs to record, with C02 named as the coach who will reply.
        let week1 = try await state.run(["ingest", "--student", "S1011", "--week", "1", "--json", CommandLineStateFixture.fixture("speech.opus")],
                                        at: "2027-01-09 15:00:00")
        #expect(week1.status == 0, "\(week1.stderr)")
        #expect(week1.stdout.contains("\"name\" : \"Ustadh Yusuf Rahman\""))
    }

    @Test("once S1001 has a weekly recording: another level is 77 already_placed in one line, the same placement 0 writing nothing; a roster row moving them to another level is 65 naming its line and writes nothing, a coach change imports")
    func alreadyPlaced() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let at = "2026-11-22 15:00:00"
        let recorded = try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")], at: at)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let noise = {
            try state.read { db in
                [try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE studentId = 'S1001'") ?? -1,
                 try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM enrolmentChange") ?? -1]
            }
        }
        let before = try noise()
        let moved = try await state.run(["placement", "set", "S1001", "--level", "L2", "--coach", "C01"], at: at)
        #expect(moved.status == 77)
        #expect(moved.stderr.hasPrefix(#"tilawa: already_placed: Student "S1001" is already placed in semester "fall-2026" at level "L1" with coach "C01""#),
                "\(moved.stderr)")
        #expect(moved.stderr.split(separator: "\n").count == 1)
        let same = try await state.run(["placement", "set", "S1001", "--level", "L1", "--coach", "C01", "--by", "C01"], at: at)
        #expect(same.status == 0, "\(same.stderr)")
        #expect(try noise() == before)

        let file = state.scratch.path("students.csv")
        try "student_id,name,level,coach_id,semester_id\nS1002,Omar Farouk,L1,C03,fall-2026\nS1001,Aisha Rahman,L2,C01,fall-2026\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let level = try await state.run(["roster", "import", file], at: at)
        #expect(level.status == 65 && level.stderr.hasPrefix("tilawa: already_placed: "), "\(level.stderr)")
        #expect(level.stderr.contains("students.csv line 3: student S1001"))
        #expect(try state.read { db in try String.fetchOne(db, sql: "SELECT coachId FROM enrolment WHERE studentId = 'S1002'") } == "C02",
                "nothing of that import is written")
        try "student_id,name,level,coach_id,semester_id\nS1001,Aisha Rahman,L1,C02,fall-2026\n".write(toFile: file, atomically: true, encoding: .utf8)
        let coach = try await state.run(["roster", "import", file], at: at)
        #expect(coach.status == 0, "\(coach.stderr)")
        #expect(try state.read { db in
            try String.fetchAll(db, sql: """
                SELECT change || ':' || enrolmentChange.coachId FROM enrolmentChange JOIN enrolment ON enrolment.id = enrolmentId
                WHERE enrolment.studentId = 'S1001' ORDER BY enrolmentChange.id
                """)
        }.last == "coach_changed:C02")
    }

    @Test("tilawa events redeliver: waiting events due now, --since replays delivered ones; 64 for a bad --since")
    func redeliver() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        // The sample import's ten welcomes wait in the outbox (no webhook here).
        let waiting = try await state.run(["events", "redeliver"])
        #expect(waiting.status == 0 && waiting.stdout == "10 waiting events due now, 0 delivered events queued again\n", "\(waiting.stdout)\(waiting.stderr)")
        let one = try await state.run(["events", "redeliver", "--student", "S1001", "--since", "7d"])
        #expect(one.status == 0 && one.stdout == "1 waiting events due now, 0 delivered events queued again\n")
        let bad = try await state.run(["events", "redeliver", "--since", "last tuesday"])
        #expect(bad.status == 64 && bad.stderr.contains("--since must be RFC 3339"))
    }

    @Test("an end-of-course reply needs its result: 64 for S1001_eoc.opus, the reply by id with --result answers it")
    func eocReplyNeedsResult() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let reply = state.scratch.path("S1001_eoc.opus")
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("speech.mp3"), toPath: reply)
        let missing = try await state.run(["feedback", "import", "--coach", "C01", reply], at: "2026-12-14 15:00:00")
        #expect(missing.status == 64 && missing.stderr.contains("rename it S1001_eoc_pass.opus if the student passed"))
        let wrong = try await state.run(["feedback", "import", "--coach", "C01", "--result", "maybe", reply], at: "2026-12-14 15:00:00")
        #expect(wrong.status == 64 && wrong.stderr.hasPrefix("tilawa: invalid_result: "))
        // A weekly reply with a result is refused: only the end-of-course reply carries one.
        #expect(try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")],
                                    at: "2026-11-22 15:00:00").status == 0)
        let weekly = state.scratch.path("S1001_w12.opus")
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("speech.mp3"), toPath: weekly)
        let withResult = try await state.run(["feedback", "import", "--coach", "C01", "--result", "pass", weekly], at: "2026-11-22 16:00:00")
        #expect(withResult.status == 77 && withResult.stderr.hasPrefix("tilawa: result_not_applicable: "))
        // By id, any file name will do.
        let id = try #require(try state.read { db in try String.fetchOne(db, sql: "SELECT id FROM submission WHERE week = 12") })
        let any = state.scratch.path("reply-for-aisha.opus")
        try FileManager.default.copyItem(atPath: CommandLineStateFixture.fixture("speech.mp3"), toPath: any)
        let byId = try await state.run(["feedback", "import", "--coach", "C01", "--submission", id, any], at: "2026-11-22 16:00:00")
        #expect(byId.status == 0, "\(byId.stderr)")
    }
}
