import Foundation
import GRDB
import Testing
import TilawaTestSupport

/// Week 12 of fall 2026 is open: Sunday 22 November 2026, 15:00 UTC.
private let received = "2026-11-22 15:00:00"
/// Three days later: the recording has waited past the 48 h feedback due time.
private let threeDaysLater = "2026-11-25 15:00:00"

@Suite("tilawa status: the real command, its output and its exit codes", .heavy)
struct StatusCommandTests {
    /// Runs `tilawa status` with a closed daemon port and disk thresholds that never fire
    /// (the build machine's own disk must not decide a test).
    private func status(_ state: CommandLineStateFixture, _ arguments: [String] = [], at time: String? = nil,
                        port: Int? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        var env = environment
        env["TILAWA_HTTP_PORT"] = String(try port ?? unusedPort())
        env["TILAWA_HTTP_HOST"] = "127.0.0.1"
        return try await state.run(["status", "--disk-warning", "0", "--disk-critical", "0"] + arguments, at: time, environment: env)
    }

    private func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)\n\(result.stderr)")
    }

    private func checkStates(_ object: [String: Any]) -> [String: String] {
        var states: [String: String] = [:]
        for check in object["checks"] as? [[String: Any]] ?? [] {
            if let name = check["name"] as? String { states[name] = check["state"] as? String }
        }
        return states
    }

    @Test("An empty state directory: exit 1 (daemon down), 2 with --expect-running; a table on a pipe has no colour")
    func emptyStateDirectory() async throws {
        // SQLite only: the database that is not there yet is the state directory's file.
        let state = try await CommandLineStateFixture(importSamples: false, engine: .sqlite)
        defer { state.remove() }
        let table = try await status(state)
        #expect(table.status == 1, "\(table.stderr)")
        #expect(table.stdout.hasPrefix("tilawa status: WARNING"))
        #expect(table.stdout.contains("WARNING   daemon"))
        #expect(table.stdout.contains("no database yet"))
        #expect(!table.stdout.contains("\u{1B}["), "stdout is a pipe")
        #expect(table.stderr.isEmpty)

        let expecting = try await status(state, ["--json", "--expect-running"])
        #expect(expecting.status == 2)
        let object = try json(expecting)
        #expect(object["state"] as? String == "critical")
        #expect((object["daemon"] as? [String: Any])?["up"] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: state.stateDirectory), "status never creates the state directory")
    }

    @Test("Overdue feedback and a rejected upload from real ingests: exit 1; a deleted artifact: exit 2")
    func seededByIngest() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let accepted = try await state.run(["ingest", "--student", "S1001", "--week", "12", "--json",
                                      CommandLineStateFixture.fixture("speech.m4a")], at: received)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let silent = try await state.run(["ingest", "--student", "S1002", "--week", "12",
                                    CommandLineStateFixture.fixture("digital_silence.wav")], at: received)
        #expect(silent.status == 65)

        let fresh = try await status(state, ["--json"], at: "2026-11-22 16:00:00")
        #expect(fresh.status == 1, "only the daemon is down: \(fresh.stdout)")
        let freshObject = try json(fresh)
        #expect(checkStates(freshObject).filter { $0.value != "ok" } == ["daemon": "warning"])
        let uploads = try #require((freshObject["uploads"] as? [String: Any])?["last_24h"] as? [String: Any])
        #expect(uploads["accepted"] as? Int == 1 && uploads["rejected"] as? Int == 1)
        #expect(uploads["rejected_by_reason"] as? [String: Int] == ["silent": 1])
        #expect((freshObject["awaiting_feedback"] as? [String: Any])?["count"] as? Int == 1)
        #expect((freshObject["notifications"] as? [String: Any])?["count"] as? Int ?? 0 >= 1, "submission_received waits in the outbox")
        let disk = try #require(freshObject["disk"] as? [String: Any])
        #expect(disk["artifact_bytes"] as? Int ?? 0 > 0)

        let late = try await status(state, ["--json"], at: threeDaysLater)
        #expect(late.status == 1)
        let lateObject = try json(late)
        #expect(checkStates(lateObject)["feedback_overdue"] == "warning")
        #expect(lateObject["overdue_by_coach"] as? [String: Int] == ["C01": 1])
        let awaiting = try #require(lateObject["awaiting_feedback"] as? [String: Any])
        #expect(awaiting["oldest_age_seconds"] as? Int == 3 * 86_400)

        let audio = try #require(try state.read { db in try String.fetchOne(db, sql: "SELECT audioPath FROM submission") })
        try FileManager.default.removeItem(atPath: state.stateDirectory + "/artifacts/" + audio)
        let missing = try await status(state, [], at: threeDaysLater)
        #expect(missing.status == 2)
        #expect(missing.stdout.hasPrefix("tilawa status: CRITICAL"))
        #expect(missing.stdout.contains("CRITICAL  missing_artifacts"))
        #expect(missing.stdout.contains(audio))
    }

    @Test("A corrupt database or a bad configuration: exit 3")
    func unknown() async throws {
        // SQLite only: the corrupt database is the state directory's file.
        let state = try await CommandLineStateFixture(importSamples: false, engine: .sqlite)
        defer { state.remove() }
        try writeFile(state.stateDirectory + "/tilawa.sqlite", bytes: 4_096)
        let corrupt = try await status(state, ["--json"])
        #expect(corrupt.status == 3)
        let object = try json(corrupt)
        #expect(object["state"] as? String == "unknown")
        #expect(checkStates(object)["database"] == "unknown")

        let badConfiguration = try await state.run(["status"], environment: ["TILAWA_HTTP_PORT": "not-a-port"])
        #expect(badConfiguration.status == 3)
        #expect(badConfiguration.stderr.hasPrefix("tilawa: "))
        #expect(badConfiguration.stderr.contains("http.port"))
    }

    @Test("Daemon up vs down: tilawa serve as a child, status sees it and its uptime, then not after SIGTERM")
    func daemonUpAndDown() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let port = try unusedPort()
        let serve = try ServeProcess(state: state, port: port)
        let ready = await serve.waitUntilReady()
        guard ready else {
            _ = await serve.terminate()
            Issue.record("tilawa serve never became ready: \(serve.log)")
            return
        }
        // The full sweep runs right after READY; on this empty state it is over in a moment.
        var up = try await status(state, ["--json", "--expect-running"], port: port)
        for _ in 0..<100 where (try? json(up)).flatMap({ ($0["missing_artifacts"] as? [String: Any])?["last_full_sweep"] as? [String: Any] }) == nil {
            try await Task.sleep(for: .milliseconds(100))
            up = try await status(state, ["--json", "--expect-running"], port: port)
        }
        let stopped = await serve.terminate()
        #expect(up.status == 0, "\(up.stdout)\n\(up.stderr)")
        let object = try json(up)
        #expect(object["state"] as? String == "ok")
        let daemon = try #require(object["daemon"] as? [String: Any])
        #expect(daemon["up"] as? Bool == true && daemon["ready"] as? Bool == true)
        #expect(daemon["uptime_seconds"] as? Int ?? -1 >= 0)
        #expect(daemon["pid"] as? Int == serve.pid)
        // The daemon's full sweep after start left its count for status.
        let sweep = try #require((object["missing_artifacts"] as? [String: Any])?["last_full_sweep"] as? [String: Any])
        #expect(sweep["count"] as? Int == 0)

        #expect(stopped == 0, "clean shutdown: \(serve.log)")
        let down = try await status(state, ["--expect-running"], port: port)
        #expect(down.status == 2)
        #expect(down.stdout.contains("CRITICAL  daemon"))
        let relaxed = try await status(state, [], port: port)
        #expect(relaxed.status == 1)
    }
}
