import Foundation
import Testing
import TilawaCore
import TilawaStore

/// Builders and checks shared by the roster suites; names start with `roster` so they
/// cannot clash with helpers of the other TilawaStore suites.
enum RosterFixture {
    static let programSource = "config/program.yaml"
    static let studentsSource = "config/students.csv"
    static let header = "student_id,name,level,coach_id,semester_id"

    /// One level in block style with the given week numbers (each week three lines).
    static func level(_ id: String, weeks: [Int] = Array(1...15), name: String = "Foundations") -> String {
        var text = "  - id: \(id)\n    name: \(name)\n    weeks:\n"
        for week in weeks {
            text += "      - week: \(week)\n        title: Surah \(week)\n        passage: \"An-Naba 78:1-\(week)\"\n"
        }
        return text
    }

    /// A whole, valid programme file unless a section is replaced.
    static func program(
        header: String = "time_zone: America/New_York\ncatch_up_grace_days: 14\n",
        semesters: String = """
          - id: fall-2026
            name: Fall 2026
            start: 2026-09-05

        """,
        coaches: String = """
          - id: C01
            name: Ustadha Maryam Haddad
            email: maryam@example.org
          - id: C02
            name: Ustadh Yusuf Rahman

        """,
        levels: String = level("L1") + level("L2", name: "Juz Amma")
    ) -> String {
        header + "semesters:\n" + semesters + "coaches:\n" + coaches + "levels:\n" + levels
    }

    /// The 1-based number of the first line containing `marker`, or of its `occurrence`-th such line.
    static func line(of marker: String, in text: String, occurrence: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) -> Int? {
        var seen = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(marker) {
            seen += 1
            if seen == occurrence { return index + 1 }
        }
        Issue.record("marker \(marker) not found \(occurrence) time(s)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A bad input and what the error must say about it; used as a `@Test(arguments:)` row.
struct RosterBadCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let code: RosterError.Code
    /// The expected line: the line holding this marker (its `occurrence`-th one); nil when no line applies.
    let lineMarker: String?
    let occurrence: Int
    /// Texts the message must contain (the culprit, an earlier line, …).
    let mentions: [String]

    init(_ name: String, _ text: String, _ code: RosterError.Code, line lineMarker: String?, occurrence: Int = 1, mentions: [String]) {
        self.name = name
        self.text = text
        self.code = code
        self.lineMarker = lineMarker
        self.occurrence = occurrence
        self.mentions = mentions
    }

    var testDescription: String { name }

    var expectedLine: Int? {
        lineMarker.flatMap { RosterFixture.line(of: $0, in: text, occurrence: occurrence) }
    }

    /// Checks code, line, source, one-line message and mentions.
    func check(_ error: RosterError, source: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.line == expectedLine, "\(error)", sourceLocation: sourceLocation)
        #expect(error.source == source, sourceLocation: sourceLocation)
        #expect(error.message.hasPrefix(source), sourceLocation: sourceLocation)
        if let line = expectedLine {
            #expect(error.message.hasPrefix("\(source) line \(line): "), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(!error.message.contains("\n"), "\(error)", sourceLocation: sourceLocation)
        #expect(error.description == "\(code.rawValue): \(error.message)", sourceLocation: sourceLocation)
        for text in mentions {
            #expect(error.message.contains(text), "\(error.message) should mention \(text)", sourceLocation: sourceLocation)
        }
    }
}
