import Testing
import TilawaStore

@Suite("RosterFileKind and RosterError")
struct RosterFileKindTests {
    @Test("detects the kind by extension", arguments: [
        ("config/program.yaml", RosterFileKind.program), ("program.yml", .program), ("/etc/tilawa/PROGRAM.YAML", .program),
        ("config/students.csv", .students), ("Students.CSV", .students), ("a.b/students.csv", .students),
    ])
    func detects(_ path: String, _ kind: RosterFileKind) throws {
        #expect(try RosterFileKind.detect(path: path) == kind)
    }

    @Test("refuses anything else with unsupported_file", arguments: [
        "students.txt", "program.json", "students", "config/", ".yaml", "students.csv.bak", "config.yaml/students",
    ])
    func refuses(_ path: String) throws {
        let error = try #require(throws: RosterError.self) { try RosterFileKind.detect(path: path) }
        #expect(error.code == .unsupportedFile)
        #expect(error.source == path)
        #expect(error.line == nil)
        #expect(error.message.hasPrefix("\(path): "))
        #expect(error.description == "unsupported_file: \(error.message)")
    }

    @Test("codes are the documented snake_case strings")
    func codes() {
        let documented = [
            "malformed_yaml", "malformed_csv", "missing_field", "invalid_identifier", "duplicate_id", "unknown_coach",
            "unknown_level", "unknown_semester", "semester_not_saturday", "invalid_time_zone", "incomplete_curriculum",
            "invalid_week", "unsupported_file", "semester_closed", "already_placed", "invalid_ayahs", "unknown_ayah",
        ]
        let codes = Set(RosterError.Code.allCases.map(\.rawValue))
        for code in documented {
            #expect(codes.contains(code), "\(code)")
        }
        #expect("\(RosterError.Code.unknownCoach)" == "unknown_coach")
        let error = RosterError(.unknownCoach, source: "s.csv", line: 7, "unknown coach \"C99\"")
        #expect(error.message == "s.csv line 7: unknown coach \"C99\"")
        #expect(error.description == "unknown_coach: s.csv line 7: unknown coach \"C99\"")
    }
}
