import Testing
import TilawaCore
import TilawaStore

@Suite("StudentsCSV")
struct RosterStudentsCSVTests {
    private let source = RosterFixture.studentsSource
    private let header = RosterFixture.header

    @Test("parses rows with their line numbers")
    func parsesRows() throws {
        let text = "\(header)\nS1001,Aisha Rahman,L1,C01,fall-2026\nS1002,Omar Farouk,L2,C02,spring-2027\n"
        let rows = try StudentsCSV.parse(text, source: source)
        #expect(rows == [
            StudentRow(line: 2, id: try Identifier(validating: "S1001"), name: "Aisha Rahman", level: "L1",
                       coachID: try Identifier(validating: "C01"), semesterID: try Identifier(validating: "fall-2026")),
            StudentRow(line: 3, id: try Identifier(validating: "S1002"), name: "Omar Farouk", level: "L2",
                       coachID: try Identifier(validating: "C02"), semesterID: try Identifier(validating: "spring-2027")),
        ])
    }

    @Test("the optional owes_from_week column: a week 1-15, or empty for the default")
    func owesFromWeek() throws {
        let text = "\(header),owes_from_week\nS1001,Aisha Rahman,L1,C01,fall-2026,6\nS1002,Omar Farouk,L2,C02,fall-2026,\n"
        let rows = try StudentsCSV.parse(text, source: source)
        #expect(rows.map(\.owesFromWeek) == [6, nil])
        #expect(try StudentsCSV.parse("\(header)\nS1001,Aisha Rahman,L1,C01,fall-2026\n", source: source).first?.owesFromWeek == nil)
    }

    @Test("a header alone is an empty roster", arguments: [
        "student_id,name,level,coach_id,semester_id",
        "student_id,name,level,coach_id,semester_id\n",
        "student_id,name,level,coach_id,semester_id\r\n\r\n",
        "\n\nstudent_id,name,level,coach_id,semester_id\n  \n",
        "\u{FEFF}student_id,name,level,coach_id,semester_id\r\n",
    ])
    func headerOnly(_ text: String) throws {
        #expect(try StudentsCSV.parse(text, source: source).isEmpty)
    }

    @Test("a byte-order mark and CRLF line ends are accepted")
    func bomAndCRLF() throws {
        let text = "\u{FEFF}\(header)\r\nS1001,Aisha Rahman,L1,C01,fall-2026\r\nS1002,Omar Farouk,L1,C01,fall-2026\r\n"
        let rows = try StudentsCSV.parse(text, source: source)
        #expect(rows.map(\.id.rawValue) == ["S1001", "S1002"])
        #expect(rows.map(\.line) == [2, 3])
        #expect(rows.last?.semesterID.rawValue == "fall-2026")
    }

    @Test("quoted fields keep commas and doubled quotes", arguments: [
        (#""Al-Amin, Zaynab""#, "Al-Amin, Zaynab"),
        (#""Abdullah ""Abdi"" Noor""#, #"Abdullah "Abdi" Noor"#),
        (#"  "Al-Amin, Zaynab"  "#, "Al-Amin, Zaynab"),
        (#"" Hafsa Karim ""#, "Hafsa Karim"),
        (#""""#, ""),
    ])
    func quotedNames(_ written: String, _ expected: String) throws {
        let text = "\(header)\nS1003,\(written),L2,C01,fall-2026\n"
        if expected.isEmpty {
            let error = try #require(throws: RosterError.self) { try StudentsCSV.parse(text, source: source) }
            #expect(error.code == .missingField)
            #expect(error.line == 2)
        } else {
            let row = try #require(try StudentsCSV.parse(text, source: source).first)
            #expect(row.name == expected)
            #expect(row.level == "L2")
        }
    }

    @Test("spaces around fields are trimmed; UTF-8 names are kept")
    func trimsAndKeepsUTF8() throws {
        let text = " student_id , name,level ,coach_id, semester_id \n  S1009 , مريم الحسيني ,\tL2\t, C03 ,fall-2026  \n"
        let row = try #require(try StudentsCSV.parse(text, source: source).first)
        #expect(row.id.rawValue == "S1009")
        #expect(row.name == "مريم الحسيني")
        #expect(row.level == "L2")
        #expect(row.coachID?.rawValue == "C03")
        #expect(row.semesterID.rawValue == "fall-2026")
    }

    @Test("blank lines are skipped and lines stay physical")
    func blankLines() throws {
        let text = "\(header)\n\nS1001,A,L1,C01,fall-2026\n   \n\r\nS1002,B,L1,C01,fall-2026\n\n"
        let rows = try StudentsCSV.parse(text, source: source)
        #expect(rows.map(\.line) == [3, 6])
    }

    @Test("a quoted field over two lines keeps the row's first line and counts the lines after it")
    func multiLineQuotedField() throws {
        let text = "\(header)\nS1001,\"Aisha\nRahman\",L1,C01,fall-2026\nS1002,B,L1,C01,x y\n"
        let error = try #require(throws: RosterError.self) { try StudentsCSV.parse(text, source: source) }
        // The line break makes the name invalid, on the line the row starts.
        #expect(error.code == .invalidValue)
        #expect(error.line == 2)
        #expect(error.message.contains("S1001"))
    }

    @Test("bad students files are refused with the first problem", arguments: Self.badCases)
    func refuses(_ bad: RosterBadCase) throws {
        let error = try #require(throws: RosterError.self) {
            try StudentsCSV.parse(bad.text, source: source)
        }
        bad.check(error, source: source)
    }

    static let badCases: [RosterBadCase] = {
        let h = RosterFixture.header
        let ok = "S1001,Aisha Rahman,L1,C01,fall-2026"
        return [
            RosterBadCase("an unterminated quote", "\(h)\n\(ok)\nS1002,\"Omar Farouk,L1,C01,fall-2026\nS1003,B,L1,C01,fall-2026\n",
                          .malformedCSV, line: "S1002", mentions: ["never closed"]),
            RosterBadCase("too few fields", "\(h)\n\(ok)\nS1002,Omar Farouk,L1,C01\n",
                          .malformedCSV, line: "S1002", mentions: ["expected 5 fields", "found 4"]),
            RosterBadCase("an unquoted comma in a name", "\(h)\nS1003,Al-Amin, Zaynab,L2,C01,fall-2026\n",
                          .malformedCSV, line: "S1003", mentions: ["found 6", "double quotes"]),
            RosterBadCase("a missing header", "\(ok)\nS1002,Omar Farouk,L1,C01,fall-2026\n",
                          .malformedCSV, line: "S1001", mentions: ["header is missing", h]),
            RosterBadCase("a wrong header", "student_id,name,level,coach,semester_id\n\(ok)\n",
                          .malformedCSV, line: "coach,", mentions: ["wrong header", "\"student_id,name,level,coach,semester_id\"", h]),
            RosterBadCase("a header with a column too few", "student_id,name,level,coach_id\n\(ok)\n",
                          .malformedCSV, line: "student_id", mentions: ["wrong header"]),
            RosterBadCase("an empty file", "", .malformedCSV, line: nil, mentions: ["empty", h]),
            RosterBadCase("a file of blank lines", "\n \r\n", .malformedCSV, line: nil, mentions: ["empty"]),
            RosterBadCase("text after a closing quote", "\(h)\nS1002,\"Omar\" Farouk,L1,C01,fall-2026\n",
                          .malformedCSV, line: "S1002", mentions: ["closing quote"]),
            RosterBadCase("a quote inside an unquoted field", "\(h)\nS1002,Omar \"the\" Farouk,L1,C01,fall-2026\n",
                          .malformedCSV, line: "S1002", mentions: ["unquoted field"]),
            RosterBadCase("an empty coach", "\(h)\n\(ok)\nS1002,Omar Farouk,L1, ,fall-2026\n",
                          .missingField, line: "S1002", mentions: ["coach_id"]),
            RosterBadCase("a path as a student id", "\(h)\n../etc,Omar Farouk,L1,C01,fall-2026\n",
                          .invalidIdentifier, line: "../etc", mentions: ["student id", "\"../etc\""]),
            RosterBadCase("a 65-character student id", "\(h)\n\(String(repeating: "7", count: 65)),Omar,L1,C01,fall-2026\n",
                          .invalidIdentifier, line: "7777", mentions: [String(repeating: "7", count: 65), "65 characters"]),
            RosterBadCase("a student id with a space", "\(h)\nS 1002,Omar Farouk,L1,C01,fall-2026\n",
                          .invalidIdentifier, line: "S 1002", mentions: ["\"S 1002\""]),
            RosterBadCase("a level with a dot", "\(h)\nS1002,Omar Farouk,L.1,C01,fall-2026\n",
                          .invalidIdentifier, line: "S1002", mentions: ["level", "\"L.1\""]),
            RosterBadCase("a coach id with a slash", "\(h)\nS1002,Omar Farouk,L1,C/01,fall-2026\n",
                          .invalidIdentifier, line: "S1002", mentions: ["coach id", "\"C/01\""]),
            RosterBadCase("a semester id that is a path", "\(h)\nS1002,Omar Farouk,L1,C01,../fall\n",
                          .invalidIdentifier, line: "S1002", mentions: ["semester id", "\"../fall\""]),
            RosterBadCase("the first bad row wins", "\(h)\nS1002,Omar,L1,C01\n\"S1003\n",
                          .malformedCSV, line: "S1002", mentions: ["found 4"]),
            RosterBadCase("an unknown column after the five", "\(h),favourite_surah\n\(ok),Al-Kahf\n",
                          .malformedCSV, line: "student_id", mentions: ["unknown column", "\"favourite_surah\"", "owes_from_week"]),
            RosterBadCase("owes_from_week past the weeks", "\(h),owes_from_week\n\(ok),16\n",
                          .invalidValue, line: "S1001", mentions: ["owes_from_week", "\"16\"", "1 to 15"]),
            RosterBadCase("owes_from_week not a number", "\(h),owes_from_week\n\(ok),six\n",
                          .invalidValue, line: "S1001", mentions: ["\"six\""]),
            RosterBadCase("a row without the optional column's cell", "\(h),owes_from_week\n\(ok)\n",
                          .malformedCSV, line: "S1001", mentions: ["expected 6 fields", "found 5"]),
        ]
    }()
}
