import Foundation
import Testing
import TilawaTestSupport

/// `database.url` and `tilawa db check` through the binary (DESIGN §13).
@Suite("database.url: validated, an unreachable server a clear 69, checked by tilawa db check", .heavy)
struct DatabaseURLCommandTests {
    @Test("A bad database.url is 78 naming the key",
          arguments: [
            (["TILAWA_DATABASE_URL": "postgres://db.example.org/tilawa"], ["db", "check"], "database.url"),
            (["TILAWA_DATABASE_URL": "postgres://tilawa:secret@db/tilawa"], ["db", "check"], "database.password_file"),
            (["TILAWA_DATABASE_URL": "mysql://tilawa@db/tilawa"], ["db", "check"], "database.url"),
            ([:], ["db", "check"], "nothing to check"),
          ])
    func refused(_ environment: [String: String], _ command: [String], _ named: String) async throws {
        // The configuration alone is tried: no database of the run's engine is given.
        let state = try await CommandLineStateFixture(importSamples: false, engine: .sqlite)
        defer { state.remove() }
        let result = try await state.run(command, environment: environment)
        #expect(result.status == 78 && result.stderr.contains(named), "\(command) \(environment): \(result.status) \(result.stderr)")
    }

    @Test("With postgres:// and no server there, every command that opens the data is 69 database_unavailable, never SQLite's data",
          arguments: [["serve"], ["jobs", "run"], ["roster", "import", CommandLineStateFixture.sample("program.yaml")]])
    func unreachable(_ command: [String]) async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let result = try await state.run(command, environment: ["TILAWA_DATABASE_URL": "postgres://tilawa@127.0.0.1:9/tilawa"])
        #expect(result.status == 69 && result.stderr.contains("database_unavailable") && result.stderr.contains("127.0.0.1:9"),
                "\(command): \(result.status) \(result.stderr)")
    }

    @Test("status on a postgres:// database.url with no server there: UNKNOWN (3), the database check naming the server, not the SQLite file")
    func status() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let result = try await state.run(["status"], environment: ["TILAWA_DATABASE_URL": "postgres://tilawa@127.0.0.1:9/tilawa"])
        let check = result.stdout.split(separator: "\n").first { $0.contains("database ") && $0.contains("cannot read") } ?? ""
        #expect(result.status == 3 && check.contains("postgres://tilawa@127.0.0.1:9/tilawa") && check.contains("cannot connect")
                && !check.contains("tilawa.sqlite"), "\(result.status) \(result.stdout)")
    }
}

@Suite("tilawa db check against PostgreSQL 15", .enabled(if: PostgresTestServer.isRequested), .heavy)
struct DatabaseCheckCommandTests {
    @Test("Ready: connect, version, create, lock (0); no such database (78); a user without CREATE (78); no server (69)")
    func check() async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        let server = try await PostgresTestServer.start()
        do {
            let ready = try await state.run(["db", "check"], environment: ["TILAWA_DATABASE_URL": server.url])
            #expect(ready.status == 0 && ready.stdout.components(separatedBy: "ok   ").count == 5 && ready.stdout.contains("is ready"),
                    "\(ready.stdout)\(ready.stderr)")

            let noDatabase = String(server.url.dropLast("tilawa".count)) + "absent"
            let missing = try await state.run(["db", "check"], environment: ["TILAWA_DATABASE_URL": noDatabase])
            #expect(missing.status == 78 && missing.stderr.contains("has no database absent"), "\(missing.stderr)")

            // PostgreSQL 15 lets only the database's owner create tables in public.
            let port = try #require(URLComponents(string: server.url)?.port)
            let role = try await runProcess("/usr/lib/postgresql/15/bin/psql",
                                            ["-h", "127.0.0.1", "-p", "\(port)", "-U", "tilawa", "-d", "tilawa", "-c", "CREATE ROLE reader LOGIN"])
            #expect(role.status == 0, "\(role.stderr)")
            let reader = server.url.replacingOccurrences(of: "//tilawa@", with: "//reader@")
            let refused = try await state.run(["db", "check"], environment: ["TILAWA_DATABASE_URL": reader])
            #expect(refused.status == 78 && refused.stderr.contains("db_create_failed") && refused.stderr.contains("OWNER TO reader"),
                    "\(refused.stderr)")

            let nowhere = try await state.run(["db", "check"], environment: ["TILAWA_DATABASE_URL": "postgres://tilawa@127.0.0.1:\(try unusedPort())/tilawa"])
            #expect(nowhere.status == 69 && nowhere.stderr.contains("cannot be reached"), "\(nowhere.stderr)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
