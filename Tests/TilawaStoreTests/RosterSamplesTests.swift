import Foundation
import Testing
import TilawaCore
import TilawaQuran
import TilawaStore

/// The sample programme shipped in `config/` must import as it is (`make run` imports it).
@Suite("Roster samples")
struct RosterSamplesTests {
    /// The repository's `config/` folder, found from this file (symbolic links resolved).
    private static let configFolder = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // TilawaStoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("config")

    private func read(_ name: String) throws -> String {
        try String(contentsOf: Self.configFolder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("config/program.yaml parses: 2 Saturday semesters, 3 coaches, 4 levels of 15 weeks")
    func program() throws {
        let source = "config/program.yaml"
        #expect(try RosterFileKind.detect(path: source) == .program)
        let program = try ProgramFile.parse(try read("program.yaml"), source: source)
        #expect(program.timeZone.identifier == "America/New_York")
        #expect(program.catchUpGraceDays == 14)
        #expect(program.semesters.map(\.id.rawValue) == ["fall-2026", "spring-2027"])
        #expect(program.semesters.map(\.start) == [LocalDate(year: 2026, month: 9, day: 5), LocalDate(year: 2027, month: 1, day: 9)])
        #expect(program.coaches.map(\.id.rawValue) == ["C01", "C02", "C03"])
        #expect(program.coaches.allSatisfy { $0.email != nil })
        #expect(program.levels.map(\.id) == ["L1", "L2", "L3", "L4"])
        // Passages are "<surah> <surah number>:<first ayah>-<last ayah>", e.g. "An-Naba 78:1-16".
        let passage = /^'?[A-Z][A-Za-z' -]+ (\d{1,3}):(\d{1,3})-(\d{1,3})$/
        for level in program.levels {
            #expect(level.weeks.map(\.week) == Array(1...15), "\(level.id)")
            for week in level.weeks {
                let match = try #require(week.passage.wholeMatch(of: passage), "\(level.id) week \(week.week): \(week.passage)")
                let surah = try #require(Int(match.1))
                let first = try #require(Int(match.2))
                let last = try #require(Int(match.3))
                #expect((1...114).contains(surah))
                #expect(first >= 1 && first < last, "\(week.passage)")
                #expect(!week.title.isEmpty)
            }
        }
        // No passage is set twice across the whole curriculum.
        let passages = program.levels.flatMap { $0.weeks.map(\.passage) }
        #expect(Set(passages).count == passages.count)
    }

    @Test("every week and every EOC of config/program.yaml names its ayahs, and a week's match its passage")
    func programAyahs() throws {
        let program = try ProgramFile.parse(try read("program.yaml"), source: "config/program.yaml")
        let reference = /(\d{1,3}):(\d{1,3})-(\d{1,3})$/
        for level in program.levels {
            for week in level.weeks {
                let match = try #require(week.passage.firstMatch(of: reference), "\(level.id) week \(week.week)")
                let expected = AyahRange(surah: try #require(Int(match.1)), first: try #require(Int(match.2)), last: try #require(Int(match.3)))
                #expect(week.ayahs == [expected], "\(level.id) week \(week.week): \(week.passage)")
            }
            #expect(!level.eoc.ayahs.isEmpty, "\(level.id) EOC")
            #expect(level.eoc.arabic == nil, "\(level.id): the sample uses ayahs, not hand-typed Arabic")
            // An EOC reviews the level: every range it lists lies within one of the level's weeks.
            let weekRanges = level.weeks.flatMap(\.ayahs)
            for range in level.eoc.ayahs {
                #expect(weekRanges.contains { $0.surah == range.surah && $0.first <= range.first && range.last <= $0.last },
                        "\(level.id) EOC \(range)")
            }
        }
        // Foundations' EOC: Al-Fatiha, then An-Nas back to Al-Asr (114-103), 13 surahs in all.
        let foundations = try #require(program.levels.first)
        #expect(foundations.eoc.ayahs.map(\.surah) == [1] + Array((103...114).reversed()))
        #expect(QuranText.uthmani.ayahs(in: foundations.eoc.ayahs).count == 7 + 6 + 5 + 4 + 5 + 3 + 6 + 3 + 7 + 4 + 5 + 9 + 3)
    }

    @Test("config/students.csv parses and validates against the sample programme")
    func students() throws {
        let program = try ProgramFile.parse(try read("program.yaml"), source: "config/program.yaml")
        let source = "config/students.csv"
        #expect(try RosterFileKind.detect(path: source) == .students)
        let rows = try StudentsCSV.parse(try read("students.csv"), source: source)
        try RosterValidator.validate(
            students: rows,
            coaches: Set(program.coaches.map(\.id.rawValue)),
            levels: Set(program.levels.map(\.id)),
            semesters: Set(program.semesters.map(\.id.rawValue)),
            source: source
        )
        #expect(rows.count == 12)
        #expect(rows.map(\.id.rawValue) == (1001...1012).map { "S\($0)" })
        #expect(rows.contains { $0.name.contains(",") })
        #expect(rows.contains { $0.name.unicodeScalars.contains { (0x0600...0x06FF).contains($0.value) } })
        #expect(Set(rows.compactMap(\.level)) == ["L1", "L2", "L3", "L4"])
        #expect(Set(rows.compactMap(\.coachID?.rawValue)) == ["C01", "C02", "C03"])
        // Two students await placement, one in each semester.
        #expect(rows.filter { $0.level == nil && $0.coachID == nil }.map(\.semesterID.rawValue) == ["fall-2026", "spring-2027"])
        #expect(rows.filter { $0.semesterID.rawValue == "fall-2026" }.count >= 8)
    }
}
