import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// The sample programme imported into a real SQLite file keeps each week's and EOC's ayah ranges.
@Suite("Roster import: ayahs stored")
struct RosterAyahsImportTests {
    private static let sample = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/program.yaml")

    private func stored(_ store: TestStore) throws -> (weeks: [String: String?], eoc: [String: String?]) {
        try store.database.engine.read { db in
            let weeks = try Row.fetchAll(db, sql: "SELECT levelId || '/' || week AS key, ayahs FROM curriculumWeek")
            let levels = try Row.fetchAll(db, sql: "SELECT id, eocAyahs FROM level")
            return (Dictionary(uniqueKeysWithValues: weeks.map { ($0["key"] as String, $0["ayahs"] as String?) }),
                    Dictionary(uniqueKeysWithValues: levels.map { ($0["id"] as String, $0["eocAyahs"] as String?) }))
        }
    }

    @Test("the sample's ranges are stored normalised; importing it again changes nothing; a file without ayahs clears them", arguments: TestEngine.all)
    func sampleImport(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let text = try String(contentsOf: Self.sample, encoding: .utf8)
        let program = try ProgramFile.parse(text, source: "config/program.yaml")
        let now = TestStore.newYork(2026, 9, 1)
        _ = try store.database.importRoster(program: program, students: [], studentsSource: "", now: now)
        let first = try stored(store)
        #expect(first.weeks.count == 60)
        #expect(first.weeks.values.allSatisfy { $0 != nil })
        #expect(first.weeks["L1/1"] == "1:1-7")
        #expect(first.weeks["L2/13"] == "89:15-30")
        #expect(first.weeks["L4/1"] == "2:255-257")
        #expect(first.eoc["L1"] == "1:1-7; 114:1-6; 113:1-5; 112:1-4; 111:1-5; 110:1-3; 109:1-6; 108:1-3; 107:1-7; 106:1-4; 105:1-5; 104:1-9; 103:1-3")
        #expect(first.eoc["L4"] == "36:1-12")

        _ = try store.database.importRoster(program: program, students: [], studentsSource: "", now: now)
        let again = try stored(store)
        #expect(again.weeks == first.weeks && again.eoc == first.eoc)

        // The file is the source of truth: an import of L1 without ayahs leaves L1 with none.
        var withoutAyahs = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var kept = String(line)
            if let range = kept.range(of: #", ayahs: "[^"]*""#, options: .regularExpression) { kept.removeSubrange(range) }
            if kept.hasPrefix("      ayahs:") { continue }
            withoutAyahs += kept + "\n"
        }
        let older = try ProgramFile.parse(withoutAyahs, source: "older.yaml")
        #expect(older.levels.allSatisfy { $0.eoc.ayahs.isEmpty && $0.weeks.allSatisfy(\.ayahs.isEmpty) })
        _ = try store.database.importRoster(program: older, students: [], studentsSource: "", now: now)
        let cleared = try stored(store)
        #expect(cleared.weeks.values.allSatisfy { $0 == nil })
        #expect(cleared.eoc.values.allSatisfy { $0 == nil })
    }
}
