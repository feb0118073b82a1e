import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("PUT /v1/students/{id}/placement once there are recordings")
struct PlacementRouteTests {
    @Test("same_gender_coaching: a placement or roster row pairing a student and a coach of different known genders is refused gender_mismatch; an unknown gender is not; the timeline shows the coach's bio")
    func sameGenderCoaching() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        // The sample programme with same-gender coaching on: C01 (Ustadha Maryam) female with a bio, C02 and C03 male.
        var programme = try String(contentsOf: packageRoot.appendingPathComponent("config/program.yaml"), encoding: .utf8)
        programme = programme.replacingOccurrences(of: "catch_up_grace_days: 14\n", with: "catch_up_grace_days: 14\nsame_gender_coaching: true\n")
        programme = programme.replacingOccurrences(of: "    places: true\n", with: "    places: true\n    gender: female\n    bio: Hafidha; teaches tajweed to beginners.\n")
        programme = programme.replacingOccurrences(of: "    email: yusuf.rahman@example.org\n", with: "    email: yusuf.rahman@example.org\n    gender: male\n")
        let program = try ProgramFile.parse(programme, source: "program.yaml")
        #expect(program.sameGenderCoaching && program.coaches.first?.gender == "female")
        let students = try StudentsCSV.parse("""
            student_id,name,level,coach_id,semester_id,gender
            S1011,Noor Al-Sayed,,,fall-2026,female
            S1012,Zakariya Osman,,,fall-2026,
            """, source: "students.csv")
        _ = try daemon.runtime.database.importRoster(program: program, students: students, studentsSource: "students.csv", now: daemon.clock.now)

        try await daemon.application().live { client in
            func place(_ student: String, _ coach: String) async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/students/\(student)/placement", method: .put,
                                         headers: try await daemon.headers(.ops, "ops", [.contentType: "application/json"]),
                                         body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "\#(coach)"}"#))
            }
            let refused = try await place("S1011", "C02")
            #expect(refused.status == .conflict && refused.json?["code"] as? String == "gender_mismatch")
            #expect((refused.json?["detail"] as? String)?.contains("female") == true, "\(String(describing: refused.json))")
            // No gender on file for S1012: any coach.
            #expect(try await place("S1012", "C02").status == .ok)
            #expect(try await place("S1011", "C01").status == .ok)
            let timeline = try await client.execute(uri: "/v1/students/S1011/timeline", method: .get, headers: try await daemon.headers(.student, "S1011"))
            let coach = try #require(timeline.json?["coach"] as? [String: Any])
            #expect(coach["id"] as? String == "C01" && coach["bio"] as? String == "Hafidha; teaches tajweed to beginners.")
        }

        // A roster row pairing them is refused, naming its line, and nothing of the file is kept.
        let row = try StudentsCSV.parse("student_id,name,level,coach_id,semester_id,gender\nS1013,Maryam Test,L1,C02,fall-2026,female\n",
                                        source: "students.csv")
        let error = #expect(throws: RosterError.self) {
            try daemon.runtime.database.importRoster(program: nil, students: row, studentsSource: "students.csv", now: daemon.clock.now)
        }
        #expect(error?.code == .genderMismatch && error?.line == 2, "\(String(describing: error))")
        #expect(try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM student WHERE id = 'S1013'") } == 0)
    }

    @Test("a student placed in week 12 owes from week 12: earlier weeks are not_owed, never late or behind; the EOC needs 12 weeks under program.eoc_late_joiners strict (the default; earlier weeks count) and only the 2 owed before it opens under proportional, and the timeline says which; their coach hears of the weeks they owed, not of the ones before",
          arguments: [SubmissionRules.LateJoiners?.none, .strict, .proportional])
    func placedLateOwesFromThePlacement(rule: SubmissionRules.LateJoiners?) async throws {
        let daemon = try await TestDaemon(configure: { if let rule { $0.program.eocLateJoiners = rule } })
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let placed = try await client.execute(uri: "/v1/students/S1011/placement", method: .put,
                                                  headers: try await daemon.headers(.ops, "ops", [.contentType: "application/json"]),
                                                  body: ByteBuffer(string: #"{"level_id": "L1", "coach_id": "C01"}"#))
            #expect(placed.status == .ok)
            let owes = try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT owesFromWeek FROM enrolment WHERE studentId = 'S1011'")
            }
            #expect(owes == 12)

            let student = try await daemon.headers(.student, "S1011")
            let timeline = try await client.execute(uri: "/v1/students/S1011/timeline", method: .get, headers: student)
            let weeks = try #require(timeline.json?["weeks"] as? [[String: Any]])
            #expect(weeks.prefix(11).allSatisfy { $0["state"] as? String == "not_owed" }, "\(weeks.prefix(11).map { $0["state"] ?? "" })")
            #expect(weeks[11]["state"] as? String == "open")
            #expect(timeline.json?["behind_count"] as? Int == 0 && timeline.json?["catch_up_message"] as? String == "You are up to date.")
            let eoc = try #require(timeline.json?["eoc"] as? [String: Any])
            if rule == .proportional {
                #expect(eoc["need"] as? Int == 2, "the weeks owed before the EOC opens in week 14")
                #expect(eoc["message"] as? String == "Complete 2 more weekly submissions to unlock the end-of-course assessment. Only the weeks since you joined in week 12 are needed.")
            } else {
                #expect(eoc["need"] as? Int == 12, "the programme's 12, as for everyone")
                #expect(eoc["message"] as? String == "Complete 12 more weekly submissions to unlock the end-of-course assessment. Weeks before you joined in week 12 count too, and are never late.")
            }

            // A week before it may still be recorded: never late.
            let early = try await client.execute(uri: "/v1/students/S1011/weeks/3/submissions", method: .post,
                                                 headers: try await daemon.headers(.student, "S1011", [.contentType: "audio/ogg"]),
                                                 body: try TestDaemon.fixture("speech.opus"))
            #expect(early.status == .created && early.json?["late"] as? Bool == false)

            // Two weeks on, weeks 12 and 13 are missed: behind 2, and the coach hears of those two only.
            daemon.clock.advance(by: 14 * 86_400)
            let later = try await daemon.request(port: client.port, method: .get, "/v1/students/S1011/timeline",
                                                 headers: try await daemon.headers(.student, "S1011"))
            #expect(later.json?["behind_count"] as? Int == 2)
            #expect(try await daemon.runtime.database.recordFallingBehind(now: daemon.clock.now) >= 1)
            let message = try await daemon.runtime.database.engine.read { db in
                try String.fetchOne(db, sql: """
                    SELECT \(db.jsonText("payload", member: "message")) FROM event
                    WHERE type = 'student_falling_behind' AND studentId = 'S1011'
                    """)
            }
            #expect(message?.contains("has nothing in after 2 weeks") == true, "\(message ?? "none")")
        }
    }

    @Test("an unplaced student is promised placement within program.placement_due_hours, not a fixed 48 hours: the not_placed refusal and the timeline say 24")
    func placementPromiseFromConfiguration() async throws {
        let daemon = try await TestDaemon(configure: { $0.program.placementDue = 24 * 3600 })
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let student = try await daemon.headers(.student, "S1011", [.contentType: "audio/ogg"])
            let assessment = try await client.execute(uri: "/v1/students/S1011/weeks/assessment/submissions", method: .post, headers: student,
                                                      body: try TestDaemon.fixture("speech.opus"))
            #expect(assessment.status == .created)
            let week = try await client.execute(uri: "/v1/students/S1011/weeks/1/submissions", method: .post, headers: student,
                                                body: try TestDaemon.fixture("speech.opus"))
            #expect(week.status == .conflict && week.json?["code"] as? String == "not_placed")
            let detail = try #require(week.json?["detail"] as? String)
            #expect(detail.contains("within 24 hours") && !detail.contains("48"), "\(detail)")
            let timeline = try await client.execute(uri: "/v1/students/S1011/timeline", method: .get, headers: try await daemon.headers(.student, "S1011"))
            let placement = try #require(timeline.json?["placement"] as? [String: Any])
            #expect((placement["message"] as? String)?.contains("within 24 hours") == true, "\(placement)")
            #expect((timeline.json?["catch_up_message"] as? String)?.contains("within 24 hours") == true)
        }
    }

    @Test("a student with a week's recording and its reply: another level or coach is 409 already_placed naming the enrolment; the same placement is a 200 that writes nothing; another semester and a student without recordings are placed")
    func noSilentReplacement() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let (submissionId, _) = try await daemon.answeredRecording(client)
            let ops = try await daemon.headers(.ops, "ops", [.contentType: "application/json"])
            func place(_ student: String, _ body: String) async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/students/\(student)/placement", method: .put, headers: ops, body: ByteBuffer(string: body))
            }
            func noise() throws -> [Int] {
                try daemon.runtime.database.engine.read { db in
                    [try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE studentId = 'S1001'") ?? -1,
                     try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM enrolmentChange") ?? -1]
                }
            }
            let before = try noise()

            let level = try await place("S1001", #"{"level_id": "L2", "coach_id": "C01"}"#)
            #expect(level.status == .conflict && level.json?["code"] as? String == "already_placed")
            let detail = try #require(level.json?["detail"] as? String)
            #expect(detail.contains("\"fall-2026\"") && detail.contains("level \"L1\"") && detail.contains("coach \"C01\""), "\(detail)")
            let coach = try await place("S1001", #"{"level_id": "L1", "coach_id": "C02", "decided_by": "C01"}"#)
            #expect(coach.status == .conflict && coach.json?["code"] as? String == "already_placed")

            // A retry of the placement that stands: 200, the enrolment unchanged, nothing written.
            let same = try await place("S1001", #"{"level_id": "L1", "coach_id": "C01", "semester_id": "fall-2026"}"#)
            #expect(same.status == .ok && same.json?["level_id"] as? String == "L1" && same.json?["coach_id"] as? String == "C01")
            #expect(same.json?["placed_by"] as? String == "roster", "the enrolment as the roster placed it, not a new placement")
            #expect(try noise() == before)
            // The recording still shows its own level's week and stays with its coach.
            #expect(try await daemon.runtime.database.submission(id: submissionId)?.state == .feedbackReady)

            // Another semester, and a student with no recordings, are placed as before.
            let spring = try await place("S1001", #"{"level_id": "L2", "coach_id": "C02", "semester_id": "spring-2027"}"#)
            #expect(spring.status == .ok && spring.json?["semester_id"] as? String == "spring-2027" && spring.json?["level_id"] as? String == "L2")
            let fresh = try await place("S1002", #"{"level_id": "L2", "coach_id": "C01"}"#)
            #expect(fresh.status == .ok && fresh.json?["level_id"] as? String == "L2")
        }
    }

    @Test("a placing coach places in their own name; a coach who does not place is 403 for any id; decided_by another coach is 403; a student the coach may not see is 404; already_placed holds for coaches too")
    func placingCoachesPlace() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            // C01 places (program.yaml: places: true); C02 and C03 do not. S1011 awaits placement.
            func place(_ role: Role, _ subject: String, _ student: String, _ body: String) async throws -> LiveAnswer {
                try await client.execute(uri: "/v1/students/\(student)/placement", method: .put,
                                         headers: try await daemon.headers(role, subject, [.contentType: "application/json"]),
                                         body: ByteBuffer(string: body))
            }
            for student in ["S1011", "S9999", "S1002"] {
                let refused = try await place(.coach, "C02", student, #"{"level_id": "L1", "coach_id": "C02"}"#)
                #expect(refused.status == .forbidden && refused.json?["code"] as? String == "not_placing_coach", "\(student)")
            }
            let student = try await place(.student, "S1011", "S1011", #"{"level_id": "L1", "coach_id": "C02"}"#)
            #expect(student.status == .forbidden)
            let other = try await place(.coach, "C01", "S1011", #"{"level_id": "L1", "coach_id": "C02", "decided_by": "C03"}"#)
            #expect(other.status == .forbidden && other.json?["code"] as? String == "decided_by_not_caller")
            // S1004 is placed with C03 and is not C01's: as if it did not exist.
            let unseen = try await place(.coach, "C01", "S1004", #"{"level_id": "L1", "coach_id": "C01"}"#)
            #expect(unseen.status == .notFound && unseen.json?["code"] as? String == "unknown_student")
            #expect(try await place(.coach, "C01", "S9999", #"{"level_id": "L1", "coach_id": "C01"}"#).status == .notFound)
            #expect(try await daemon.runtime.database.engine.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM enrolmentChange WHERE changedBy LIKE 'coach:%'") ?? -1
            } == 0)

            let placed = try await place(.coach, "C01", "S1011", #"{"level_id": "L1", "coach_id": "C02"}"#)
            #expect(placed.status == .ok, "\(String(buffer: placed.body))")
            #expect(placed.json?["placed_by"] as? String == "coach:C01" && placed.json?["coach_id"] as? String == "C02")
            let named = try await place(.coach, "C01", "S1012", #"{"level_id": "L2", "coach_id": "C01", "semester_id": "spring-2027", "decided_by": "C01"}"#)
            #expect(named.status == .ok && named.json?["placed_by"] as? String == "coach:C01")
            let events = try await daemon.runtime.database.engine.read { db in
                try String.fetchAll(db, sql: "SELECT type FROM event WHERE studentId = 'S1011' AND type = 'placement_ready'")
            }
            #expect(events.count == 1)

            // C01's own student with a recording: the placement is fixed for a coach too.
            _ = try await daemon.answeredRecording(client)
            let fixed = try await place(.coach, "C01", "S1001", #"{"level_id": "L2", "coach_id": "C01"}"#)
            #expect(fixed.status == .conflict && fixed.json?["code"] as? String == "already_placed")
        }
    }
}
