import Foundation
import Testing
import TilawaTestSupport

/// `tilawa log-id` (issue 46): the token a running daemon's log names someone by, printed by
/// the command reading the same database, so an operator can grep one person's lines.
@Suite("tilawa log-id", .heavy)
struct LogIdCommandTests {
    @Test("""
        prints the pseudonym the daemon logged for a student's preference change and refused request, never the id; \
        the same with log.ids: clear, with a note; 64 for bad usage
        """)
    func matchesTheDaemon() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: DaemonProcessTests.clock)
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let token = try await state.run(["token", "issue", "--student", "S1002"], at: "2026-11-22 15:00:00").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let (changed, body) = try await sendJSON("PUT", daemon.port, "/v1/students/S1002/preferences", token: token,
                                                 json: #"{"time_zone": "Asia/Dubai"}"#)
        #expect(changed == 200, "\(String(decoding: body, as: UTF8.self))")
        let (refused, _) = try await sendJSON("GET", daemon.port, "/v1/students/S1002/timeline", token: token + "x")
        #expect(refused == 401)
        #expect(await daemon.terminate() == 0)

        let printed = try await state.run(["log-id", "--student", "S1002"])
        #expect(printed.status == 0 && printed.stderr.isEmpty, "\(printed.stderr)")
        let pseudonym = printed.stdout.trimmingCharacters(in: .newlines)
        #expect(pseudonym.wholeMatch(of: try Regex(#"s_[0-9a-f]{12}"#)) != nil, "\(printed.stdout)")
        let lines = daemon.log.split(separator: "\n")
        let change = lines.first { $0.contains(#"msg="preferences changed""#) }
        #expect(change?.contains(" student=\(pseudonym)") == true && change?.contains(" by=student:\(pseudonym)") == true, "\(daemon.log)")
        let refusal = lines.first { $0.contains(#"msg="request refused: not signed in""#) }
        #expect(refusal?.hasPrefix("level=notice") == true || refusal?.contains(" level=notice ") == true, "\(daemon.log)")
        #expect(refusal?.contains(" reason=invalid_token") == true && refusal?.contains(" client=127.0.0.1") == true, "\(daemon.log)")
        #expect(refusal?.contains(" path=/v1/students/\(pseudonym)/timeline") == true, "\(daemon.log)")
        #expect(!daemon.log.contains("S1002"), "the student's id in the daemon's log:\n\(daemon.log)")
        #expect(!daemon.log.contains(token), "a token in the daemon's log")

        #expect(try await state.run(["log-id", "--student", "S1002"]).stdout == printed.stdout, "the same each time")
        let coach = try await state.run(["log-id", "--coach", "C01"])
        #expect(coach.status == 0 && coach.stdout.hasPrefix("c_") && coach.stdout != printed.stdout)
        let clear = try await state.run(["log-id", "--student", "S1002"], environment: ["TILAWA_LOG_IDS": "clear"])
        #expect(clear.status == 0 && clear.stdout == printed.stdout, "the pseudonym of the lines logged before")
        #expect(clear.stderr.hasPrefix("tilawa: warning: log.ids is clear"), "\(clear.stderr)")

        for arguments in [[], ["--student", "S1002", "--coach", "C01"], ["--student", "../etc"], ["--subject", ""]] {
            let usage = try await state.run(["log-id"] + arguments)
            #expect(usage.status == 64 && usage.stdout.isEmpty, "\(arguments): \(usage.stderr)")
        }
    }
}
