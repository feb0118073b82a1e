import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// students.csv's optional `date_of_birth` (DESIGN §16): parsed as a real `YYYY-MM-DD` date or
/// refused naming its line, the student's own column (rows of one student agree), stored on the
/// student's row, an empty cell keeping what is stored.
@Suite("students.csv date_of_birth: parsed, refused, agreed across rows, stored")
struct RosterDateOfBirthTests {
    static let header = "student_id,name,level,coach_id,semester_id,date_of_birth\n"

    @Test("a real YYYY-MM-DD date or empty; anything else is invalid_date_of_birth naming the line and the cell",
          arguments: ["2012-02-30", "23/04/2012", "2012-4-23", "1850-01-01", "tomorrow"])
    func refused(_ cell: String) {
        #expect {
            _ = try StudentsCSV.parse(Self.header + "S1,A,L1,C01,fall-2026,2012-04-23\nS2,B,L1,C01,fall-2026,\(cell)\n", source: "s.csv")
        } throws: { error in
            guard let error = error as? RosterError else { return false }
            return error.code == .invalidDateOfBirth && error.message.contains("line 3") && error.message.contains("\"\(cell)\"")
        }
    }

    @Test("parsed, and two rows of one student that disagree name both lines (conflicting_rows); agreeing or empty ones are fine")
    func parsedAndAgreed() throws {
        let rows = try StudentsCSV.parse(Self.header + "S1,A,L1,C01,fall-2026,2012-04-23\nS1,A,L1,C01,spring-2027,\nS1,A,L1,C01,fall-2027,2012-04-24\n",
                                         source: "s.csv")
        #expect(rows.map { $0.dateOfBirth?.description } == ["2012-04-23", nil, "2012-04-24"])
        #expect {
            try RosterValidator.validate(students: rows, coaches: ["C01"], levels: ["L1"], semesters: ["fall-2026", "spring-2027", "fall-2027"],
                                         source: "s.csv")
        } throws: { error in
            guard let error = error as? RosterError else { return false }
            return error.code == .conflictingRows && error.message.contains("line 2") && error.message.contains("line 4")
                && error.message.contains("date_of_birth")
        }
        #expect(throws: Never.self) {
            try RosterValidator.validate(students: Array(rows.prefix(2)), coaches: ["C01"], levels: ["L1"], semesters: ["fall-2026", "spring-2027"],
                                         source: "s.csv")
        }
    }

    @Test("imported onto the student's row; an empty cell keeps it; an erasure removes it", arguments: TestEngine.all)
    func stored(engine: TestEngine) async throws {
        let store = try TestStore(engine, students: ["S1001"])
        defer { store.remove() }
        func row(_ born: String?) -> StudentRow {
            StudentRow(line: 2, id: Identifier(rawValue: "S1001")!, name: "Student S1001", level: "L1", coachID: Identifier(rawValue: "C01")!,
                       semesterID: Identifier(rawValue: "fall-2026")!, dateOfBirth: born.flatMap { LocalDate($0) })
        }
        func stored() async throws -> String? {
            try await store.database.engine.read { db in try StudentRecord.fetchOne(db, key: "S1001")?.dateOfBirth }
        }
        let now = TestStore.newYork(2026, 9, 20)
        _ = try store.database.importRoster(program: nil, students: [row("2012-04-23")], studentsSource: "s.csv", now: now)
        #expect(try await stored() == "2012-04-23")
        _ = try store.database.importRoster(program: nil, students: [row(nil)], studentsSource: "s.csv", now: now)
        #expect(try await stored() == "2012-04-23", "an empty cell keeps it")
        #expect(try await store.database.engine.read { db in try StudentRecord.fetchOne(db, key: "S1001")?.birthDate } == LocalDate(year: 2012, month: 4, day: 23))
        guard case .success = try await store.database.erase(studentId: "S1001", force: true, by: "amina", reason: "asked", now: now) else {
            Issue.record("not erased")
            return
        }
        #expect(try await stored() == nil)
    }
}
