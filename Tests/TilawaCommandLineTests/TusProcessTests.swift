import Crypto
import Foundation
import GRDB
import Testing
import TilawaTestSupport

@Suite("tus with a real client: tuspy uploads every fixture in 64 KiB chunks while the daemon is SIGKILLed between chunks and mid-append", .heavy)
struct TusProcessTests {
    @Test("every upload resumes to the source's bytes and becomes exactly one submission or one rejection with its reason")
    func everyFixtureUnderKills() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let manifest = Fixtures.all
        try #require(!manifest.isEmpty)
        // Two recordings a week per student: the accepted fixtures go two by two to S1001…S1009's
        // week 12, and past those 18 to their placement assessments (which use no attempt).
        // Rejections use no attempt, so they all go to S1001's week 12, first (once its attempts
        // are used, an upload is refused `attempt_limit` at creation, before any byte).
        var fixtures: [[String: String]] = []
        var accepted = 0
        var expected: [String: String] = [:]
        for entry in manifest.filter({ !$0.isAccepted }) + manifest.filter(\.isAccepted) {
            let student: String
            var slot = "12"
            if entry.verdict == "accepted" {
                student = accepted < 18 ? "S100\(1 + accepted / 2)" : "S100\(1 + (accepted - 18) % 9)"
                if accepted >= 18 { slot = "assessment" }
                accepted += 1
            } else {
                student = "S1001"
            }
            expected[entry.file] = entry.verdict
            fixtures.append(["file": CommandLineStateFixture.fixture(entry.file), "student": student, "slot": slot,
                             "type": Self.mediaType(entry.file)])
        }
        var tokens: [String: String] = [:]
        for number in 1...9 {
            let student = "S100\(number)"
            tokens[student] = try await state.run(["token", "issue", "--student", student], at: "2026-11-22 15:00:00").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var daemonEnvironment = DaemonProcessTests.clock.merging(state.environment) { $1 }
        daemonEnvironment["TILAWA_STATE_DIR"] = state.stateDirectory
        daemonEnvironment["TZ"] = "UTC"
        daemonEnvironment["TILAWA_NOTIFICATIONS_COACH_DIGEST"] = "none"
        let config: [String: Any] = [
            "tilawa": tilawaBinary, "scratch": state.scratch.path, "state": state.stateDirectory, "fixtures": fixtures, "tokens": tokens,
            "seed": 1717, "kill_probability": 0.06, "daemon_environment": daemonEnvironment,
        ]
        let configPath = state.scratch.path("tus.json")
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        let result = try await runProcess(packageRoot.appendingPathComponent(".venv-test/bin/python").path,
                                          [packageRoot.appendingPathComponent("Tests/contract/tus_upload.py").path, configPath],
                                          environment: environment, timeout: 600)
        let log = (try? String(contentsOfFile: state.scratch.path("serve.log"), encoding: .utf8)) ?? ""
        try #require(result.status == 0, "\(result.stderr)\n\(log.suffix(3000))")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        #expect(results.count == manifest.count)
        let kills = report["kills"] as? Int ?? 0
        let midAppend = report["mid_append_kills"] as? Int ?? 0
        #expect(kills - midAppend >= 3 && midAppend >= 3, "the daemon was killed \(kills) times, \(midAppend) of them mid-append")

        var submissionIds: [String] = []
        for entry in results {
            let file = try #require(entry["file"] as? String)
            let checks = entry["prefix_checks"] as? [Bool] ?? []
            #expect(checks.allSatisfy { $0 }, "\(file): the staged bytes differed from the source's \(checks)")
            let status = entry["status"] as? Int
            let body = entry["body"] as? [String: Any] ?? [:]
            if expected[file] == "accepted" {
                #expect(status == 200, "\(file): \(body)")
                let id = try #require(body["id"] as? String, "\(file)")
                submissionIds.append(id)
                #expect((entry["link"] as? String)?.contains("</v1/submissions/\(id)>; rel=\"submission\"") == true, "\(file)")
                // The original kept is the source, byte for byte.
                let original = try #require(try state.read { db in
                    try String.fetchOne(db, sql: "SELECT originalPath FROM submission WHERE id = ?", arguments: [id])
                })
                let kept = try Data(contentsOf: URL(fileURLWithPath: state.stateDirectory + "/artifacts/" + original))
                let source = try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture(file)))
                #expect(SHA256.hash(data: kept) == SHA256.hash(data: source), "\(file)")
            } else {
                // What a one-shot upload answers: 415 for a format that is not audio, 422 for the rest.
                #expect(status == (body["code"] as? String == "unsupported_format" ? 415 : 422), "\(file): \(status ?? 0) \(body)")
                let reasons = manifest.first { $0.file == file }?.reasons ?? []
                #expect(reasons.contains(body["code"] as? String ?? ""), "\(file): \(body["code"] ?? "none") not in \(reasons)")
            }
        }
        // Exactly one submission per accepted fixture, one rejection per rejected one, nothing else.
        let (submissions, rejections, refusals) = try state.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection WHERE code IN ('attempt_limit', 'week_locked')") ?? -1)
        }
        #expect(Set(submissionIds).count == accepted && submissions == accepted)
        #expect(rejections == manifest.count - accepted && refusals == 0)
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/uploads")) ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/staging")) ?? [])
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    static func mediaType(_ file: String) -> String {
        switch URL(fileURLWithPath: file).pathExtension.lowercased() {
        case "wav": "audio/wav"
        case "flac": "audio/flac"
        case "mp3": "audio/mpeg"
        case "ogg", "opus": "audio/ogg"
        case "m4a": "audio/mp4"
        case "webm": "audio/webm"
        case "caf": "audio/x-caf"
        default: "application/octet-stream"
        }
    }
}
