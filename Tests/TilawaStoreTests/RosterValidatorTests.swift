import Testing
import TilawaCore
import TilawaStore

@Suite("RosterValidator")
struct RosterValidatorTests {
    private let source = RosterFixture.studentsSource
    private let coaches: Set<String> = ["C01", "C02", "C03"]
    private let levels: Set<String> = ["L1", "L2"]
    private let semesters: Set<String> = ["fall-2026", "spring-2027"]

    private func rows(_ lines: String...) throws -> [StudentRow] {
        try StudentsCSV.parse(([RosterFixture.header] + lines).joined(separator: "\n"), source: source)
    }

    private func validate(_ students: [StudentRow]) throws(RosterError) {
        try RosterValidator.validate(students: students, coaches: coaches, levels: levels, semesters: semesters, source: source)
    }

    @Test("known references pass; so does an empty roster")
    func passes() throws {
        try validate(try rows("S1001,A,L1,C01,fall-2026", "S1002,B,L2,C03,spring-2027"))
        try validate([])
    }

    @Test("unknown references name the culprit, the line and what is known", arguments: [
        ("S1002,B,L1,C99,fall-2026", RosterError.Code.unknownCoach, ["unknown coach \"C99\"", "known: C01, C02, C03", "S1002"]),
        ("S1002,B,L9,C01,fall-2026", .unknownLevel, ["unknown level \"L9\"", "known: L1, L2"]),
        ("S1002,B,L1,C01,fall-2025", .unknownSemester, ["unknown semester \"fall-2025\"", "known: fall-2026, spring-2027"]),
        ("S1002,B,L1,c01,fall-2026", .unknownCoach, ["\"c01\""]),
    ])
    func unknown(_ row: String, _ code: RosterError.Code, _ mentions: [String]) throws {
        let students = try rows("S1001,A,L1,C01,fall-2026", "", row)
        let error = try #require(throws: RosterError.self) { try validate(students) }
        #expect(error.code == code)
        #expect(error.line == 4)
        #expect(error.message.hasPrefix("config/students.csv line 4: "))
        for text in mentions {
            #expect(error.message.contains(text), "\(error.message)")
        }
    }

    @Test("a duplicate student id names both lines")
    func duplicate() throws {
        let students = try rows("S1001,A,L1,C01,fall-2026", "S1002,B,L1,C01,fall-2026", "S1001,C,L2,C02,fall-2026")
        let error = try #require(throws: RosterError.self) { try validate(students) }
        #expect(error.code == .duplicateID)
        #expect(error.line == 4)
        #expect(error.message.contains("\"S1001\""))
        #expect(error.message.contains("lines 2 and 4"))
    }

    @Test("the first bad row in file order is reported, its columns checked left to right")
    func firstInFileOrder() throws {
        let students = try rows("S1001,A,L1,C01,fall-2026", "S1002,B,L7,C77,fall-2077", "S1001,C,L1,C01,fall-2026")
        let error = try #require(throws: RosterError.self) { try validate(students) }
        #expect(error.code == .unknownLevel)
        #expect(error.line == 3)
    }

    @Test("with nothing known, the message says to import the programme first")
    func nothingKnown() throws {
        let students = try rows("S1001,A,L1,C01,fall-2026")
        let error = try #require(throws: RosterError.self) {
            try RosterValidator.validate(students: students, coaches: [], levels: ["L1"], semesters: ["fall-2026"], source: source)
        }
        #expect(error.code == .unknownCoach)
        #expect(error.message.contains("program.yaml"))
    }

    @Test("a long list of known ids is cut short")
    func longKnownList() throws {
        let many = Set((1...40).map { "C\($0 < 10 ? "0" : "")\($0)" })
        let students = try rows("S1001,A,L1,C99,fall-2026")
        let error = try #require(throws: RosterError.self) {
            try RosterValidator.validate(students: students, coaches: many, levels: ["L1"], semesters: ["fall-2026"], source: source)
        }
        #expect(error.message.contains("known: C01, C02, C03"))
        #expect(error.message.contains("(28 more)"))
        #expect(!error.message.contains("C40"))
    }
}
