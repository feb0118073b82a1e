import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Subjects: the identity provider's sub, mapped to one student or coach")
struct SubjectTests {
    func row(_ line: Int, _ student: String, subject: String?, semester: String = "fall-2026") -> StudentRow {
        StudentRow(line: line, id: Identifier(rawValue: student)!, name: "Student \(student)", level: "L1", coachID: Identifier(rawValue: "C01")!,
                   semesterID: Identifier(rawValue: semester)!, subject: subject)
    }

    @Test("students.csv subject: imported and looked up; an empty cell keeps it; one subject for two people is refused naming both", arguments: TestEngine.all)
    func students(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001", "S1002"])
        defer { store.remove() }
        let now = TestStore.newYork(2026, 10, 1)
        _ = try store.database.importRoster(program: nil, students: [row(2, "S1001", subject: "auth0|aisha"), row(3, "S1002", subject: "omar@example.org")],
                                            studentsSource: "s.csv", now: now)
        #expect(try await store.database.subjectOwner("auth0|aisha", subjectIsId: false)! == ("student", "S1001"))
        #expect(try await store.database.subjectOwner("omar@example.org", subjectIsId: false)! == ("student", "S1002"))
        #expect(try await store.database.subjectOwner("S1001", subjectIsId: true) == nil, "an id maps only for one without a subject")
        #expect(try await store.database.subjectOwner("S1001", subjectIsId: false) == nil)
        _ = try store.database.importRoster(program: nil, students: [row(2, "S1001", subject: nil)], studentsSource: "s.csv", now: now)
        #expect(try await store.database.subjectOwner("auth0|aisha", subjectIsId: false)! == ("student", "S1001"), "an empty cell keeps it")
        // S1002 cannot take S1001's subject; C01 cannot either; nothing is written.
        #expect {
            _ = try store.database.importRoster(program: nil, students: [row(4, "S1002", subject: "auth0|aisha")], studentsSource: "s.csv", now: now)
        } throws: { ($0 as? RosterError)?.code == .duplicateSubject && ($0 as? RosterError)?.message.contains("student S1001") == true }
        try await store.database.engine.write { db in try db.execute(sql: "UPDATE coach SET subject = 'auth0|c01' WHERE id = 'C01'") }
        #expect {
            _ = try store.database.importRoster(program: nil, students: [row(5, "S1002", subject: "auth0|c01")], studentsSource: "s.csv", now: now)
        } throws: { ($0 as? RosterError)?.code == .duplicateSubject && ($0 as? RosterError)?.message.contains("coach C01") == true }
        #expect(try await store.database.subjectOwner("omar@example.org", subjectIsId: false)! == ("student", "S1002"))
        #expect(try await store.database.subjectOwner("auth0|c01", subjectIsId: false)! == ("coach", "C01"))
    }

    @Test("in one file: two students with one subject, one student with two, a subject with a control character")
    func fileRefusals() throws {
        #expect {
            try RosterValidator.validate(students: [row(2, "S1", subject: "x"), row(3, "S2", subject: "x")], coaches: ["C01"], levels: ["L1"],
                                         semesters: ["fall-2026"], source: "s.csv")
        } throws: { ($0 as? RosterError)?.code == .duplicateSubject && ($0 as? RosterError)?.message.contains("line 2") == true }
        #expect {
            try RosterValidator.validate(students: [row(2, "S1", subject: "x"), row(3, "S1", subject: "y", semester: "spring-2027")], coaches: ["C01"],
                                         levels: ["L1"], semesters: ["fall-2026", "spring-2027"], source: "s.csv")
        } throws: { ($0 as? RosterError)?.code == .conflictingRows }
        #expect(throws: Never.self) {
            try RosterValidator.validate(students: [row(2, "S1", subject: "x"), row(3, "S1", subject: "x", semester: "spring-2027")], coaches: ["C01"],
                                         levels: ["L1"], semesters: ["fall-2026", "spring-2027"], source: "s.csv")
        }
        #expect {
            _ = try StudentsCSV.parse("student_id,name,level,coach_id,semester_id,subject\nS1,A,L1,C01,fall-2026,\"a\u{7}b\"\n", source: "s.csv")
        } throws: { ($0 as? RosterError)?.code == .invalidValue }
    }

    @Test("program.yaml subject: read for a coach; two coaches with one subject are refused naming the lines")
    func coaches() throws {
        let sample = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/program.yaml").path, encoding: .utf8)
        let one = sample.replacingOccurrences(of: "    places: true\n  - id: C02\n", with: "    places: true\n    subject: auth0|maryam\n  - id: C02\n")
        #expect(try ProgramFile.parse(one, source: "p.yaml").coaches.first { $0.id.rawValue == "C01" }?.subject == "auth0|maryam")
        let two = one.replacingOccurrences(of: "    email: yusuf.rahman@example.org\n", with: "    email: yusuf.rahman@example.org\n    subject: auth0|maryam\n")
        #expect {
            _ = try ProgramFile.parse(two, source: "p.yaml")
        } throws: { ($0 as? RosterError)?.code == .duplicateSubject && ($0 as? RosterError)?.message.contains("line ") == true }
    }
}
