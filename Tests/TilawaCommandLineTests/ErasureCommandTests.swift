import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// `tilawa export` and `tilawa erase` with hostile names in the roster and a damaged row
/// (DESIGN §12): what they write or remove stays inside the state directory and the zip.
@Suite("Export and erasure never reach outside the state directory", .heavy)
struct ErasureCommandTests {
    /// Every file under `root` but the state directory and `skipping`, with its contents.
    private func outside(_ root: String, skipping: Set<String>) -> [String: Data] {
        var found: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let name = enumerator?.nextObject() as? String {
            guard !name.hasPrefix("var/"), name != "var", !skipping.contains(name) else { continue }
            var directory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &directory), !directory.boolValue {
                found[name] = FileManager.default.contents(atPath: root + "/" + name)
            }
        }
        return found
    }

    @Test("Names like paths stay text; a row naming ../../ is neither exported nor removed; the student's own files all go")
    func hostileNames() async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        // The roster names a student like a path out of the artifacts directory, another like a system file.
        let roster = try String(contentsOfFile: CommandLineStateFixture.sample("students.csv"), encoding: .utf8)
            .replacingOccurrences(of: "Aisha Rahman", with: "../../sentinel/victim.txt")
            .replacingOccurrences(of: "Omar Farouk", with: "/etc/passwd")
        let rosterFile = state.scratch.path("students.csv")
        try roster.write(toFile: rosterFile, atomically: true, encoding: .utf8)
        let imported = try await state.run(["roster", "import", CommandLineStateFixture.sample("program.yaml"), rosterFile])
        #expect(imported.status == 0, "\(imported.stderr)")
        try FileManager.default.createDirectory(atPath: state.scratch.path("sentinel"), withIntermediateDirectories: true)
        try Data("not Tilawa's".utf8).write(to: URL(fileURLWithPath: state.scratch.path("sentinel/victim.txt")))
        try Data("nor this".utf8).write(to: URL(fileURLWithPath: state.scratch.path("sentinel/victim.m4a")))
        try Data("nor that".utf8).write(to: URL(fileURLWithPath: state.scratch.path("sentinel/victim.opus")))

        for week in ["11", "12"] {
            let ingested = try await state.run(["ingest", "--student", "S1001", "--week", week, CommandLineStateFixture.fixture("speech.opus")],
                                               at: "2026-11-22 15:00:00")
            #expect(ingested.status == 0, "\(ingested.stderr)")
        }
        // A damaged row (a hand edit, a bad restore) names a file outside the store.
        let own: [String] = try state.write { db in
            let week11 = try String.fetchOne(db, sql: "SELECT id FROM submission WHERE week = 11")
            try db.execute(sql: "UPDATE submission SET audioPath = '../../sentinel/victim.opus', waveformPath = '../../sentinel/victim.txt' WHERE id = ?",
                           arguments: [week11])
            return try String.fetchAll(db, sql: """
                SELECT originalPath FROM submission WHERE originalPath IS NOT NULL
                UNION ALL SELECT audioPath FROM submission WHERE audioPath NOT LIKE '../%'
                UNION ALL SELECT waveformPath FROM submission WHERE waveformPath NOT LIKE '../%'
                """)
        }
        #expect(own.count == 4, "two originals, week 12's Ogg and waveform")
        let before = outside(state.scratch.path, skipping: ["export.zip"])

        let exported = try await state.run(["export", "--student", "S1001", "export.zip"], at: "2026-11-23 10:00:00")
        #expect(exported.status == 0, "\(exported.stderr)")
        let listing = try await runProcess("/usr/bin/unzip", ["-Z1", state.scratch.path("export.zip")])
        let names = listing.stdout.split(separator: "\n").map(String.init)
        #expect(names.contains { $0.hasPrefix("recordings/") && $0.hasSuffix(".ogg") })
        #expect(names.allSatisfy { ArtifactPathCheck.isPlain($0) }, "\(names)")
        #expect(names.filter { $0.hasPrefix("recordings/") && $0.hasSuffix(".ogg") }.count == 1, "only week 12's recording: the damaged row's path is not read")
        let zip = try Data(contentsOf: URL(fileURLWithPath: state.scratch.path("export.zip")))
        for words in ["not Tilawa's", "nor this", "nor that"] { #expect(zip.range(of: Data(words.utf8)) == nil, "\(words)") }
        let tested = try await runProcess("/usr/bin/unzip", ["-tq", state.scratch.path("export.zip")])
        #expect(tested.status == 0, "\(tested.stdout)")

        let erased = try await state.run(["erase", "--student", "S1001", "--confirm", "--force", "--reason", "Asked by the family", "--by", "ops"],
                                         at: "2026-11-23 10:05:00")
        #expect(erased.status == 0, "\(erased.stderr)")
        for path in own { #expect(!FileManager.default.fileExists(atPath: state.stateDirectory + "/artifacts/" + path), "\(path)") }
        #expect(outside(state.scratch.path, skipping: ["export.zip"]) == before, "nothing outside the state directory changed")
        let name = try state.read { db in try String.fetchOne(db, sql: "SELECT name FROM student WHERE id = 'S1001'") }
        #expect(name == "")
    }

    @Test("erase then a routine roster import: the erased student's row is skipped with a line saying so, their name stays gone")
    func rosterImportAfterErasure() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let erased = try await state.run(["erase", "--student", "S1001", "--confirm", "--force", "--reason", "Asked by the family", "--by", "ops"],
                                         at: "2026-11-23 10:00:00")
        try #require(erased.status == 0, "\(erased.stderr)")
        let imported = try await state.run(["roster", "import", CommandLineStateFixture.sample("program.yaml"), CommandLineStateFixture.sample("students.csv")],
                                           at: "2026-11-23 10:05:00")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("students.csv:2: student S1001 was erased"), "\(imported.stdout)")
        let (name, subject) = try state.read { db in
            (try String.fetchOne(db, sql: "SELECT name FROM student WHERE id = 'S1001'"), try String.fetchOne(db, sql: "SELECT subject FROM student WHERE id = 'S1001'"))
        }
        #expect(name == "" && subject == nil)

        // The operator re-admits S1001 as a new student: said, audited, and S1001 has a name again.
        let readmitted = try await state.run(["roster", "import", "--allow-erased", "S1001", "--allow-erased", "S9999",
                                              CommandLineStateFixture.sample("students.csv")], at: "2026-11-23 10:10:00")
        #expect(readmitted.status == 0, "\(readmitted.stderr)")
        #expect(readmitted.stdout.contains("re-admitted ") && readmitted.stdout.contains("students.csv:2: student S1001 as a new student"),
                "\(readmitted.stdout)")
        #expect(readmitted.stdout.contains("kept apart as S1001-erased-1"), "\(readmitted.stdout)")
        #expect(!readmitted.stdout.contains("skipped"), "\(readmitted.stdout)")
        #expect(readmitted.stderr.contains("warning: --allow-erased S9999: no row"), "\(readmitted.stderr)")
        let (back, audited) = try state.read { db in
            (try String.fetchOne(db, sql: "SELECT name FROM student WHERE id = 'S1001'"),
             try String.fetchAll(db, sql: "SELECT action FROM audit WHERE studentId = 'S1001' AND action = 'student_readmitted'"))
        }
        #expect(back?.isEmpty == false && audited.count == 1)
    }
}

/// A zip entry name made from ids: relative, no `..`, only letters, digits and `._-/`.
enum ArtifactPathCheck {
    static func isPlain(_ name: String) -> Bool {
        !name.hasPrefix("/") && !name.split(separator: "/").contains("..")
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "._-/".unicodeScalars.contains($0) }
    }
}
