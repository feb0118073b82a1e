import Foundation
import Testing
import TilawaCore
import TilawaQuran
import TilawaStore

/// `ayahs:` on a week and on a level's EOC: read, checked against the Quran text, line-named errors.
@Suite("ProgramFile ayahs")
struct RosterAyahsTests {
    private let source = RosterFixture.programSource

    /// Level L1 whose week 1 carries `week1` lines (indented as week keys) and whose EOC block is `eoc`.
    private static func level(week1: String, eoc: String = "") -> String {
        var text = "  - id: L1\n    name: Foundations\n" + eoc + "    weeks:\n"
        for week in 1...15 {
            text += "      - week: \(week)\n        title: Surah \(week)\n        passage: \"An-Naba 78:1-\(week)\"\n"
            if week == 1 { text += week1 }
        }
        return text
    }

    @Test("a week's and an EOC's ayahs are read as ranges")
    func reads() throws {
        let eoc = "    eoc:\n      passage: \"Al-Fatiha and An-Nas\"\n      ayahs: \"1:1-7; 114:1-6\"\n"
        let text = RosterFixture.program(levels: Self.level(week1: "        ayahs: \"78:1-16\"\n", eoc: eoc))
        let program = try ProgramFile.parse(text, source: source)
        let level = try #require(program.levels.first)
        #expect(level.weeks[0].ayahs == [AyahRange(surah: 78, first: 1, last: 16)])
        #expect(level.weeks[1].ayahs == [])
        #expect(level.eoc.ayahs == [AyahRange(surah: 1, first: 1, last: 7), AyahRange(surah: 114, first: 1, last: 6)])
        #expect(level.eoc.arabic == nil)
    }

    @Test("a single ayah, written unquoted, reads as itself (never as YAML's base-60 number)")
    func singleAyahUnquoted() throws {
        let text = RosterFixture.program(levels: Self.level(week1: "        ayahs: 2:255\n"))
        let program = try ProgramFile.parse(text, source: source)
        #expect(program.levels.first?.weeks[0].ayahs == [AyahRange(surah: 2, first: 255, last: 255)])
    }

    @Test("an older file's hand-typed eoc.arabic is still read")
    func olderArabic() throws {
        let eoc = "    eoc:\n      passage: \"Al-Fatiha\"\n      arabic: \"بِسْمِ ٱللَّهِ\"\n"
        let program = try ProgramFile.parse(RosterFixture.program(levels: Self.level(week1: "", eoc: eoc)), source: source)
        #expect(program.levels.first?.eoc.arabic == "بِسْمِ ٱللَّهِ")
        #expect(program.levels.first?.eoc.ayahs == [])
    }

    static let badCases: [RosterBadCase] = {
        let p = RosterFixture.self
        let week = { (value: String) in p.program(levels: level(week1: "        ayahs: \(value)\n")) }
        let eoc = { (value: String) in p.program(levels: level(week1: "", eoc: "    eoc:\n      title: Review\n      ayahs: \(value)\n")) }
        return [
            RosterBadCase("an unknown surah", week("\"115:1-3\""), .unknownAyah, line: "ayahs:",
                          mentions: ["levels[0].weeks[0].ayahs", "no surah 115", "1 to 114"]),
            RosterBadCase("an unknown ayah", week("\"1:1-8\""), .unknownAyah, line: "ayahs:",
                          mentions: ["surah 1 has no ayah 8", "1 to 7"]),
            RosterBadCase("an unknown ayah in a later range", week("\"1:1-7; 114:7\""), .unknownAyah, line: "ayahs:",
                          mentions: ["surah 114 has no ayah 7"]),
            RosterBadCase("a reversed range", week("\"78:16-1\""), .invalidAyahs, line: "ayahs:",
                          mentions: ["\"78:16-1\"", "ends before it starts"]),
            RosterBadCase("malformed syntax", week("\"78 1-16\""), .invalidAyahs, line: "ayahs:",
                          mentions: ["\"78 1-16\"", "surah:first-last"]),
            RosterBadCase("a comma instead of a semicolon", week("\"1:1-7, 114:1-6\""), .invalidAyahs, line: "ayahs:",
                          mentions: ["\"1:1-7, 114:1-6\""]),
            RosterBadCase("an ayah listed twice", week("\"1:1-7; 1:7\""), .invalidAyahs, line: "ayahs:",
                          mentions: ["1:7 repeats", "1:1-7"]),
            RosterBadCase("a list where text belongs", week("[\"1:1-7\"]"), .invalidValue, line: "ayahs:",
                          mentions: ["levels[0].weeks[0].ayahs", "text"]),
            RosterBadCase("an EOC's unknown ayah", eoc("\"98:1-9\""), .unknownAyah, line: "ayahs:",
                          mentions: ["levels[0].eoc.ayahs", "surah 98 has no ayah 9"]),
            RosterBadCase("an EOC's malformed ayahs", eoc("\"98\""), .invalidAyahs, line: "ayahs:",
                          mentions: ["levels[0].eoc.ayahs", "\"98\""]),
            RosterBadCase("a misspelt key", week("\"1:1-7\"").replacingOccurrences(of: "ayahs:", with: "ayah:"), .unknownField,
                          line: "ayah:", mentions: ["\"ayah\"", "ayahs"]),
        ]
    }()

    @Test("bad ayahs are refused on their line", arguments: badCases)
    func refuses(_ bad: RosterBadCase) throws {
        let error = try #require(throws: RosterError.self) { try ProgramFile.parse(bad.text, source: source) }
        bad.check(error, source: source)
    }
}
