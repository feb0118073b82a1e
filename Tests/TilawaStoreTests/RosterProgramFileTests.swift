import Foundation
import Testing
import TilawaCore
import TilawaStore

@Suite("ProgramFile")
struct RosterProgramFileTests {
    private let source = RosterFixture.programSource

    @Test("parses the format as documented")
    func parsesDocumentedFormat() throws {
        let text = """
        time_zone: America/New_York      # optional
        catch_up_grace_days: 10
        semesters:
          - id: fall-2026
            name: Fall 2026
            start: 2026-09-05
        coaches:
          - id: C01
            name: Ustadha Maryam Haddad
            email: maryam@example.org
          - id: C02
            name: Ustadh Yusuf Rahman
        levels:

        """ + RosterFixture.level("L1")
        let program = try ProgramFile.parse(text, source: source)

        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(program.timeZone == newYork)
        #expect(program.catchUpGraceDays == 10)
        #expect(program.semesters.count == 1)
        let semester = try #require(program.semesters.first)
        #expect(semester.id.rawValue == "fall-2026")
        #expect(semester.name == "Fall 2026")
        #expect(semester.start == LocalDate(year: 2026, month: 9, day: 5))
        #expect(semester.calendar == (try SemesterCalendar(start: semester.start, timeZone: newYork, weekCount: 15, catchUpGraceDays: 10)))
        // Week 1 unlocks at local Saturday midnight, EDT (UTC−4).
        #expect(semester.calendar.unlock(week: 1) == Date(timeIntervalSince1970: 1_788_580_800))
        #expect(program.coaches == [
            CoachDefinition(id: try Identifier(validating: "C01"), name: "Ustadha Maryam Haddad", email: "maryam@example.org"),
            CoachDefinition(id: try Identifier(validating: "C02"), name: "Ustadh Yusuf Rahman", email: nil),
        ])
        let level = try #require(program.levels.first)
        #expect(level.id == "L1")
        #expect(level.name == "Foundations")
        #expect(level.weeks.map(\.week) == Array(1...15))
        #expect(level.weeks[7] == WeekDefinition(week: 8, title: "Surah 8", passage: "An-Naba 78:1-8"))
    }

    @Test("a start date reads the same as a YAML date or a quoted string", arguments: [
        "2026-09-05", "\"2026-09-05\"", "'2026-09-05'",
    ])
    func startDateForms(_ written: String) throws {
        let text = RosterFixture.program(semesters: "  - id: fall-2026\n    name: Fall 2026\n    start: \(written)\n")
        let program = try ProgramFile.parse(text, source: source)
        #expect(program.semesters.first?.start == LocalDate(year: 2026, month: 9, day: 5))
    }

    @Test("time zone and grace days default to America/New_York and 14")
    func defaults() throws {
        let program = try ProgramFile.parse(RosterFixture.program(header: ""), source: source)
        #expect(program.timeZone.identifier == "America/New_York")
        #expect(program.catchUpGraceDays == 14)
        #expect(program.semesters.first?.calendar.catchUpGraceDays == 14)
        #expect(program.semesters.first?.calendar.timeZone.identifier == "America/New_York")
    }

    @Test("the calendar uses the file's time zone")
    func otherTimeZone() throws {
        let text = RosterFixture.program(header: "time_zone: Europe/London\n")
        let program = try ProgramFile.parse(text, source: source)
        let semester = try #require(program.semesters.first)
        #expect(program.timeZone.identifier == "Europe/London")
        // 2026-09-05 00:00 BST is 2026-09-04 23:00 UTC.
        #expect(semester.calendar.unlock(week: 1) == Date(timeIntervalSince1970: 1_788_562_800))
    }

    @Test("weeks in any order come out sorted; ids keep leading zeros")
    func weeksSortedAndTextKept() throws {
        let text = RosterFixture.program(
            coaches: "  - id: 0012\n    name: Coach Twelve\n",
            levels: RosterFixture.level("L1", weeks: Array((1...15).reversed()))
        )
        let program = try ProgramFile.parse(text, source: source)
        #expect(program.levels.first?.weeks.map(\.week) == Array(1...15))
        #expect(program.coaches.first?.id.rawValue == "0012")
    }

    @Test("a byte-order mark and CRLF line ends are accepted")
    func bomAndCRLF() throws {
        let text = "\u{FEFF}" + RosterFixture.program().replacingOccurrences(of: "\n", with: "\r\n")
        let program = try ProgramFile.parse(text, source: source)
        #expect(program.semesters.count == 1)
        #expect(program.coaches.count == 2)
        #expect(program.levels.count == 2)
        #expect(program.coaches.first?.name == "Ustadha Maryam Haddad")
    }

    @Test("a file may hold only some sections; null sections are empty")
    func partialFile() throws {
        let program = try ProgramFile.parse("coaches:\n  - id: C09\n    name: Ustadh Anas Karim\nlevels: ~\n", source: source)
        #expect(program.coaches.map(\.id.rawValue) == ["C09"])
        #expect(program.semesters.isEmpty)
        #expect(program.levels.isEmpty)
    }

    @Test("bad programme files are refused with the first problem", arguments: Self.badCases)
    func refuses(_ bad: RosterBadCase) throws {
        let error = try #require(throws: RosterError.self) {
            try ProgramFile.parse(bad.text, source: source)
        }
        bad.check(error, source: source)
    }

    static let badCases: [RosterBadCase] = {
        let p = RosterFixture.self
        let semester = { (id: String, start: String) in "  - id: \(id)\n    name: Semester \(id)\n    start: \(start)\n" }
        let coach = { (id: String) in "  - id: \(id)\n    name: Coach \(id)\n" }
        var fourteen = Array(1...15)
        fourteen.removeLast()
        var duplicated = Array(1...15)
        duplicated[4] = 3
        return [
            // duplicate ids
            RosterBadCase("duplicate coach id", p.program(coaches: coach("C01") + coach("C02") + coach("C01")),
                          .duplicateID, line: "- id: C01", occurrence: 2, mentions: ["\"C01\"", "coaches[2].id", "line 8"]),
            RosterBadCase("duplicate level id", p.program(levels: p.level("L1") + p.level("L1")),
                          .duplicateID, line: "- id: L1", occurrence: 2, mentions: ["\"L1\"", "levels[1].id", "level"]),
            RosterBadCase("duplicate semester id", p.program(semesters: semester("fall-2026", "2026-09-05") + semester("fall-2026", "2027-01-09")),
                          .duplicateID, line: "- id: fall-2026", occurrence: 2, mentions: ["\"fall-2026\"", "semesters[1].id", "line 4"]),
            // curriculum
            RosterBadCase("a level with 14 weeks", p.program(levels: p.level("L1") + p.level("L2", weeks: fourteen)),
                          .incompleteCurriculum, line: "- id: L2", mentions: ["\"L2\"", "14 of 15", "week 15"]),
            RosterBadCase("a level with no weeks", p.program(levels: "  - id: L1\n    name: Foundations\n    weeks: []\n"),
                          .incompleteCurriculum, line: "- id: L1", mentions: ["\"L1\"", "0 of 15", "1, 2, 3"]),
            RosterBadCase("a level without weeks", p.program(levels: "  - id: L1\n    name: Foundations\n"),
                          .missingField, line: "- id: L1", mentions: ["levels[0]", "\"weeks\""]),
            RosterBadCase("a duplicated week", p.program(levels: p.level("L1", weeks: duplicated)),
                          .invalidWeek, line: "- week: 3", occurrence: 2, mentions: ["week 3", "levels[0].weeks[4].week", "\"L1\"", "line 23"]),
            RosterBadCase("week 16", p.program(levels: p.level("L1", weeks: Array(1...14) + [16])),
                          .invalidWeek, line: "- week: 16", mentions: ["\"16\"", "levels[0].weeks[14].week", "1 to 15"]),
            RosterBadCase("week 0", p.program(levels: p.level("L1", weeks: [0] + Array(2...15))),
                          .invalidWeek, line: "- week: 0", mentions: ["\"0\""]),
            RosterBadCase("a week that is a word", p.program(levels: "  - id: L1\n    name: F\n    weeks:\n      - week: eoc\n        title: T\n        passage: P\n"),
                          .invalidWeek, line: "week: eoc", mentions: ["\"eoc\""]),
            // YAML syntax
            RosterBadCase("a tab in the indentation", p.program(coaches: "  - id: C01\n\tname: Coach\n"),
                          .malformedYAML, line: "\tname", mentions: ["tab"]),
            RosterBadCase("an unclosed bracket", p.program(levels: "  - id: L1\n    name: Foundations\n    weeks: [1, 2\n"),
                          .malformedYAML, line: "weeks: [1, 2", mentions: ["YAML syntax", "flow sequence", "']'"]),
            RosterBadCase("a repeated key", p.program(coaches: "  - id: C01\n    name: A\n    name: B\n"),
                          .malformedYAML, line: "name: A", mentions: ["\"name\""]),
            RosterBadCase("not a mapping at the top", "- just\n- a list\n", .malformedYAML, line: "- just", mentions: ["mapping"]),
            // semesters and settings
            RosterBadCase("a semester starting on a Sunday", p.program(semesters: semester("spring-2027", "2027-01-10")),
                          .semesterNotSaturday, line: "start: 2027-01-10", mentions: ["2027-01-10", "Sunday", "semesters[0].start", "2027-01-09"]),
            RosterBadCase("an invalid time zone", p.program(header: "time_zone: Mars/Olympus_Mons\n"),
                          .invalidTimeZone, line: "time_zone", mentions: ["\"Mars/Olympus_Mons\""]),
            RosterBadCase("a date that does not exist", p.program(semesters: semester("s1", "2026-02-30")),
                          .invalidValue, line: "start: 2026-02-30", mentions: ["2026-02-30"]),
            RosterBadCase("a start that is not a date", p.program(semesters: semester("s1", "next Saturday")),
                          .invalidValue, line: "start: next", mentions: ["\"next Saturday\"", "YYYY-MM-DD"]),
            RosterBadCase("a start with a time", p.program(semesters: semester("s1", "2026-09-05T10:00:00Z")),
                          .invalidValue, line: "start: 2026", mentions: ["2026-09-05T10:00:00Z"]),
            RosterBadCase("negative grace days", p.program(header: "catch_up_grace_days: -1\n"),
                          .invalidValue, line: "catch_up_grace_days", mentions: ["catch_up_grace_days", "\"-1\""]),
            // identifiers
            RosterBadCase("a path as a coach id", p.program(coaches: coach("../etc")),
                          .invalidIdentifier, line: "- id: ../etc", mentions: ["\"../etc\"", "coaches[0].id"]),
            RosterBadCase("a 65-character semester id", p.program(semesters: semester(String(repeating: "s", count: 65), "2026-09-05")),
                          .invalidIdentifier, line: "- id: sss", mentions: [String(repeating: "s", count: 65), "65 characters"]),
            RosterBadCase("a level id with a space", p.program(levels: p.level("Level 1")),
                          .invalidIdentifier, line: "- id: Level 1", mentions: ["\"Level 1\"", "levels[0].id"]),
            // fields
            RosterBadCase("a coach without a name", p.program(coaches: "  - id: C01\n    email: a@example.org\n"),
                          .missingField, line: "- id: C01", mentions: ["coaches[0]", "\"name\""]),
            RosterBadCase("an empty week title", p.program(levels: "  - id: L1\n    name: F\n    weeks:\n      - week: 1\n        title: \"  \"\n        passage: P\n"),
                          .missingField, line: "- week: 1", mentions: ["levels[0].weeks[0]", "\"title\""]),
            RosterBadCase("a name over two lines", p.program(coaches: "  - id: C01\n    name: |\n      Ustadha\n      Maryam\n"),
                          .invalidValue, line: "name: |", mentions: ["coaches[0].name", "one line"]),
            RosterBadCase("a list where a name belongs", p.program(coaches: "  - id: C01\n    name: [a, b]\n"),
                          .invalidValue, line: "name: [a, b]", mentions: ["coaches[0].name", "a list"]),
            RosterBadCase("a bad e-mail", p.program(coaches: "  - id: C01\n    name: A\n    email: maryam at example.org\n"),
                          .invalidValue, line: "email:", mentions: ["\"maryam at example.org\""]),
            RosterBadCase("semesters given as text", p.program(semesters: "  fall-2026\n"),
                          .invalidValue, line: "fall-2026", mentions: ["semesters", "list"]),
            RosterBadCase("an unknown top-level key", "coach:\n  - id: C01\n    name: A\n", .unknownField, line: "coach:", mentions: ["\"coach\"", "coaches"]),
            RosterBadCase("an unknown key in a week", p.program(levels: "  - id: L1\n    name: F\n    weeks:\n      - week: 1\n        titel: T\n"),
                          .unknownField, line: "titel", mentions: ["\"titel\"", "levels[0].weeks[0]"]),
            RosterBadCase("an empty file", "", .missingField, line: nil, mentions: ["empty"]),
            RosterBadCase("only settings", "time_zone: America/New_York\n", .missingField, line: "time_zone", mentions: ["semesters, coaches, levels"]),
            // first problem in file order, whatever order the sections are in
            RosterBadCase("levels before coaches: the earlier problem wins",
                          "levels:\n" + p.level("L1", weeks: [1]) + "coaches:\n" + coach("bad id"),
                          .incompleteCurriculum, line: "- id: L1", mentions: ["\"L1\""]),
            RosterBadCase("a bad time zone after a bad semester: the semester wins",
                          "semesters:\n" + semester("x/y", "2026-09-05") + "time_zone: Nowhere/Land\n",
                          .invalidIdentifier, line: "x/y", mentions: ["\"x/y\""]),
            RosterBadCase("within one item the lower line wins",
                          "coaches:\n  - name: A\n    id: bad.id\n    email: nope\n",
                          .invalidIdentifier, line: "bad.id", mentions: ["\"bad.id\""]),
        ]
    }()
}
