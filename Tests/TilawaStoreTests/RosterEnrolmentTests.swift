import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Roster import: one enrolment per student and semester")
struct RosterEnrolmentTests {
    func row(_ line: Int, _ student: String, _ level: String?, _ coach: String?, _ semester: String) -> StudentRow {
        StudentRow(line: line, id: Identifier(rawValue: student)!, name: "Student \(student)", level: level,
                   coachID: coach.map { Identifier(rawValue: $0)! }, semesterID: Identifier(rawValue: semester)!)
    }

    func changes(_ store: TestStore) throws -> [String] {
        try store.database.engine.read { db in
            try String.fetchAll(db, sql: """
                SELECT change || ':' || COALESCE(enrolmentChange.coachId, '-') || ':' || changedBy FROM enrolmentChange
                JOIN enrolment ON enrolment.id = enrolmentChange.enrolmentId WHERE enrolment.studentId = 'S1001'
                ORDER BY enrolmentChange.id
                """)
        }
    }

    @Test("an open semester's coach may change (kept as history); a closed one's is final (65 semester_closed naming the row); identical rows change nothing", arguments: TestEngine.all)
    func coachChanges(engine: TestEngine) throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        let open = TestStore.newYork(2026, 10, 1)
        _ = try store.database.importRoster(program: nil, students: [row(2, "S1001", "L1", "C01", "fall-2026")], studentsSource: "s.csv", now: open)
        #expect(try changes(store).isEmpty, "the same row as the existing enrolment changes nothing")
        _ = try store.database.importRoster(program: nil, students: [row(2, "S1001", "L1", "C02", "fall-2026")], studentsSource: "s.csv", now: open)
        #expect(try changes(store) == ["coach_changed:C02:roster"])
        #expect(try store.database.coachQueue(coachId: "C02", now: Date()).isEmpty)
        // An unplaced row never undoes a placement.
        _ = try store.database.importRoster(program: nil, students: [row(2, "S1001", nil, nil, "fall-2026")], studentsSource: "s.csv", now: open)
        #expect(try store.database.engine.read { db in try String.fetchOne(db, sql: "SELECT coachId FROM enrolment") } == "C02")

        let closed = TestStore.newYork(2027, 1, 3)
        #expect {
            try store.database.importRoster(program: nil, students: [row(7, "S1001", "L1", "C01", "fall-2026")], studentsSource: "s.csv", now: closed)
        } throws: { error in
            guard let error = error as? RosterError else { return false }
            return error.code == .semesterClosed && error.message.hasPrefix("s.csv line 7: student S1001 in semester \"fall-2026\"")
        }
        #expect(try store.database.engine.read { db in try String.fetchOne(db, sql: "SELECT coachId FROM enrolment") } == "C02")
        // Re-importing the closed semester's row as it stands is still fine (idempotent).
        _ = try store.database.importRoster(program: nil, students: [row(7, "S1001", "L1", "C02", "fall-2026")], studentsSource: "s.csv", now: closed)
    }

    @Test("the same student in two semesters in one file is two enrolments; twice in one semester is a duplicate")
    func duplicates() throws {
        #expect(throws: Never.self) {
            try RosterValidator.validate(students: [row(2, "S1", "L1", "C01", "fall-2026"), row(3, "S1", "L1", "C01", "spring-2027")],
                                         coaches: ["C01"], levels: ["L1"], semesters: ["fall-2026", "spring-2027"], source: "s.csv")
        }
        #expect {
            try RosterValidator.validate(students: [row(2, "S1", "L1", "C01", "fall-2026"), row(3, "S1", nil, nil, "fall-2026")],
                                         coaches: ["C01"], levels: ["L1"], semesters: ["fall-2026"], source: "s.csv")
        } throws: { error in
            (error as? RosterError)?.code == .duplicateID
        }
    }

    @Test("level and coach are empty together or not at all")
    func halfPlaced() {
        let text = "student_id,name,level,coach_id,semester_id\nS1,A,,,fall-2026\nS2,B,L1,,fall-2026\n"
        #expect {
            try StudentsCSV.parse(text, source: "s.csv")
        } throws: { error in
            guard let error = error as? RosterError else { return false }
            return error.code == .missingField && error.line == 3 && error.message.contains("coach_id is empty")
        }
        let rows = try? StudentsCSV.parse("student_id,name,level,coach_id,semester_id\nS1,A,,,fall-2026\n", source: "s.csv")
        #expect(rows?.first?.level == nil && rows?.first?.coachID == nil)
    }
}
