import Foundation
import Testing
import TilawaTestSupport

/// The commands on PostgreSQL (DESIGN §13): the same programme, rules and answers as on
/// SQLite, with nothing written to the state directory's SQLite file.
@Suite("Commands on PostgreSQL: roster, ingest with its encode, the attempt rule", .enabled(if: PostgresTestServer.isRequested), .heavy)
struct PostgresCommandTests {
    static let now = "2026-11-22 15:00:00"

    @Test("Roster import, two recordings encoded, the third refused with 75, and no SQLite file")
    func programmeOnPostgres() async throws {
        let environment = ["TILAWA_DATABASE_URL": try SharedPostgres.database()]
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        let imported = try await state.run(["roster", "import", CommandLineStateFixture.sample("program.yaml"),
                                            CommandLineStateFixture.sample("students.csv")], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        for week in [11, 12] {
            let ingested = try await state.run(["ingest", "--student", "S1001", "--week", "\(week)", CommandLineStateFixture.fixture("speech.opus")],
                                               at: Self.now, environment: environment)
            #expect(ingested.status == 0, "week \(week): \(ingested.stderr)")
        }
        let third = try await state.run(["ingest", "--student", "S1001", "--week", "10", CommandLineStateFixture.fixture("speech.opus")],
                                        at: Self.now, environment: environment)
        #expect(third.status == 75 && third.stderr.contains("attempt_limit"), "\(third.status) \(third.stderr)")
        // Another student's attempts are their own.
        let other = try await state.run(["ingest", "--student", "S1002", "--week", "12", CommandLineStateFixture.fixture("speech.opus")],
                                        at: Self.now, environment: environment)
        #expect(other.status == 0, "\(other.stderr)")

        // Encoded: the Ogg Opus files are on disk, named by rows that only PostgreSQL holds.
        let audio = FileManager.default.enumerator(atPath: state.stateDirectory + "/artifacts")?.allObjects
            .compactMap { $0 as? String }.filter { $0.hasPrefix("submissions/") && $0.hasSuffix(".opus") } ?? []
        #expect(audio.count == 3, "\(audio)")
        #expect(!FileManager.default.fileExists(atPath: state.stateDirectory + "/tilawa.sqlite"))

        // status reads the server's database: three accepted, the check naming the server.
        let status = try await state.run(["status", "--json"], at: "2026-11-22 15:05:00", environment: environment)
        let report = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let uploads = (report?["uploads"] as? [String: Any])?["last_24h"] as? [String: Any]
        let database = report?["database"] as? [String: Any]
        #expect(uploads?["accepted"] as? Int == 3, "\(status.stdout)")
        #expect(database?["path"] as? String == environment["TILAWA_DATABASE_URL"], "\(status.stdout)")

        // A backup of the state directory would not hold the data: refused, naming the server's tools.
        let backup = try await state.run(["backup", "create", state.scratch.path("backup")], environment: environment)
        #expect(backup.status == 78 && backup.stderr.contains("database_remote") && backup.stderr.contains("pg_dump"), "\(backup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state.scratch.path("backup")))
        let scheduled = try await state.run(["serve"], environment: environment.merging(["TILAWA_BACKUP_DIR": state.scratch.path("nightly")]) { $1 })
        #expect(scheduled.status == 78 && scheduled.stderr.contains("backup.dir") && scheduled.stderr.contains("pg_dump"), "\(scheduled.stderr)")
    }
}
