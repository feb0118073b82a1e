import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import Testing
import TilawaTestSupport

/// `make run`'s demo (scripts/run.sh): whatever the month, a newcomer meets an open week, a
/// coach's queue, a reply and a question, and the upload line it prints is accepted.
@Suite("make run's demo in any month (scripts/run.sh, a real daemon)", .heavy)
struct DemoRunTests {
    /// 2027-03-15 12:00 in New York, months after the shipped sample semesters.
    static let march2027 = ISO8601DateFormatter().date(from: "2027-03-15T16:00:00Z")!

    func run(_ scratch: ScratchDirectory, port: Int) throws -> ServeProcess {
        try ServeProcess(stateDirectory: scratch.path("var"), port: port, directory: scratch.path, environment: [
            "DEMO_TODAY": "2027-03-15",
            // The daemon lives in March 2027 (debug builds; rate 1: an offset, not a faster clock).
            "TILAWA_TEST_CLOCK": "\(Int(Self.march2027.timeIntervalSince1970)),1",
        ], command: ["bash", packageRoot.appendingPathComponent("scripts/run.sh").path, tilawaBinary])
    }

    func get(_ port: Int, _ path: String, token: String) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 22)
        return (try JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    @Test("under a clock moved to March 2027: week 4 is open, the printed curl line is accepted, C01's queue holds a recording and a question, a reply is out; a second run seeds nothing again")
    func demoInAnotherMonth() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let state = scratch.path("var")
        let port = try unusedPort()
        let first = try run(scratch, port: port)
        #expect(await first.waitUntilReady(), "\(first.log)")
        let seeded = state + "/demo-seeded"
        let deadline = ContinuousClock.now + .seconds(180)
        while !FileManager.default.fileExists(atPath: seeded), ContinuousClock.now < deadline, first.process.isRunning {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(FileManager.default.fileExists(atPath: seeded),
                "\((try? String(contentsOfFile: state + "/demo-seed.log", encoding: .utf8)) ?? "")\n\(first.log)")

        // The line the newcomer pastes: week 4, accepted.
        let printed = first.log.components(separatedBy: "\n")
        let start = try #require(printed.firstIndex { $0.hasPrefix("  curl -sS -X POST") }, "\(first.log)")
        let line = printed[start...(start + 2)].joined(separator: "\n")
        #expect(line.contains("/weeks/4/submissions"), "\(line)")
        let pasted = try await runProcess("bash", ["-c", line], directory: packageRoot.path, timeout: TestTime.hangInterval)
        let answer = (try? JSONSerialization.jsonObject(with: Data(pasted.stdout.utf8))) as? [String: Any]
        #expect(answer?["week"] as? Int == 4 && answer?["code"] == nil, "\(pasted.stdout)\(pasted.stderr)")

        // Tokens for the daemon's March 2027 (token issue honours the test clock as serve does).
        let environment = ["TILAWA_STATE_DIR": state, "TILAWA_TEST_CLOCK": "\(Int(Self.march2027.timeIntervalSince1970)),1"]
        let coach = try await runProcess(tilawaBinary, ["token", "issue", "--coach", "C01"], environment: environment)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let queue = try await get(port, "/v1/coaches/C01/queue", token: coach)
        #expect((queue["items"] as? [Any])?.isEmpty == false, "\(queue)")
        #expect((queue["questions"] as? [Any])?.count == 1, "\(queue)")
        let student = try await runProcess(tilawaBinary, ["token", "issue", "--student", "S1003"], environment: environment)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let timeline = try await get(port, "/v1/students/S1003/timeline", token: student)
        #expect(timeline["current_week"] as? Int == 4, "\(String(describing: timeline["current_week"]))")
        let week3 = (timeline["weeks"] as? [[String: Any]])?.first { $0["number"] as? Int == 3 }
        #expect(week3?["feedback"] != nil && !(week3?["feedback"] is NSNull), "a reply on week 3: \(String(describing: week3))")
        _ = await first.terminate()

        func submissions() throws -> Int {
            try DatabaseQueue(path: state + "/tilawa.sqlite").read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") ?? 0 }
        }
        let before = try submissions()
        let second = try run(scratch, port: try unusedPort())
        #expect(await second.waitUntilReady(), "\(second.log)")
        #expect(second.log.contains("nothing is seeded twice"), "\(second.log)")
        _ = await second.terminate()
        #expect(try submissions() == before)
    }
}
