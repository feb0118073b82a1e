import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// `retention.months_after_semester` through `tilawa retention` (DESIGN §12): the audio of a
/// semester closed long enough ago goes, listed first by `--dry-run`; the rows stay.
@Suite("Retention: the audio of closed semesters, listed then removed", .heavy)
struct RetentionCommandTests {
    @Test("Fall's recording is listed by --dry-run and removed after; nothing before fall closed + N months; off without a setting")
    func retention() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        #expect(try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")],
                                    at: "2026-11-22 15:00:00").status == 0)
        let paths = try state.read { db in
            try String.fetchAll(db, sql: "SELECT originalPath FROM submission UNION ALL SELECT audioPath FROM submission UNION ALL SELECT waveformPath FROM submission")
        }
        #expect(paths.count == 3)
        let off = try await state.run(["retention", "--dry-run"], at: "2027-06-01 12:00:00")
        #expect(off.status == 64 && off.stderr.contains("retention_off"))
        // Fall 2026 closes on 9 January 2027: one month after, in February, not yet on 1 February.
        let early = try await state.run(["retention", "--months", "1", "--dry-run"], at: "2027-02-01 12:00:00")
        #expect(early.status == 0 && early.stdout.contains("0 recordings, 0 files"), "\(early.stdout)")
        let listed = try await state.run(["retention", "--dry-run"], at: "2027-03-01 12:00:00",
                                         environment: ["TILAWA_RETENTION_MONTHS_AFTER_SEMESTER": "1"])
        #expect(listed.status == 0 && listed.stdout.contains("1 recordings") && listed.stdout.contains("dry run"), "\(listed.stdout)")
        for path in paths {
            #expect(listed.stdout.contains("would remove \(path)"))
            #expect(FileManager.default.fileExists(atPath: state.stateDirectory + "/artifacts/" + path), "a dry run removes nothing")
        }
        let applied = try await state.run(["retention"], at: "2027-03-01 12:00:00", environment: ["TILAWA_RETENTION_MONTHS_AFTER_SEMESTER": "1"])
        #expect(applied.status == 0, "\(applied.stderr)")
        for path in paths { #expect(!FileManager.default.fileExists(atPath: state.stateDirectory + "/artifacts/" + path), "\(path)") }
        let row = try state.read { db in try Row.fetchOne(db, sql: "SELECT audioPath, state FROM submission") }
        #expect(row?["audioPath"] as String? == nil && row?["state"] as String? == "awaiting_feedback", "the row stays, without audio")
    }
}
