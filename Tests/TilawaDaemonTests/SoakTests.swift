import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import Testing
import TilawaTestSupport

/// The crash soak (`make soak`): uploads (some retried with their Idempotency-Key, many racing
/// for the same students) and drop-folder replies while the daemon is SIGKILLed at random
/// moments and restarted; then the invariants. Off in `make test` (it runs for minutes).
@Suite("Crash soak", .enabled(if: ProcessInfo.processInfo.environment["SOAK"] != nil, "set SOAK=1 (make soak)"))
struct SoakTests {
    static let uploads = Int(ProcessInfo.processInfo.environment["SOAK_UPLOADS"] ?? "") ?? 200
    static let replies = Int(ProcessInfo.processInfo.environment["SOAK_REPLIES"] ?? "") ?? 200
    static let kills = 4

    @Test("Nothing accepted is lost, no third attempt in 7 days, no orphan or missing file, every reply taken once")
    func soak() async throws {
        let state = try CommandLineStateFixture()
        defer { state.remove() }
        var random = SeededGenerator(seed: UInt64(Date().timeIntervalSince1970))
        let students = (1...10).map { String(format: "S%04d", 1000 + $0) }
        let body = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech.opus"))))
        var tokens: [String: String] = [:]
        for student in students {
            tokens[student] = try state.run(["token", "issue", "--student", student, "--ttl", "7d"], at: "2026-11-22 15:00:00")
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let coachOf = try state.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, coachId FROM student").map { ($0["id"] as String, $0["coachId"] as String) })
        }
        var accepted: Set<String> = []
        var dropped = 0
        var sent = 0
        let perRound = max(1, Self.uploads / (Self.kills + 1))
        for round in 0...Self.kills {
            let daemon = try ServeProcess(stateDirectory: state.stateDirectory, port: try unusedPort(), directory: state.scratch.path,
                                          environment: DaemonProcessTests.clock)
            guard await daemon.waitUntilReady() else { Issue.record("daemon did not start: \(daemon.log)"); return }
            // Replies for this round (the assessment each student has, made below on round 0).
            let requests = (0..<min(perRound, Self.uploads - sent)).map { index -> (String, String, String) in
                let student = students.randomElement(using: &random)!
                let slot = Bool.random(using: &random) ? "assessment" : ["10", "11", "12"].randomElement(using: &random)!
                // A third of the keys repeat an earlier one of the same student and slot: retries.
                let key = index % 3 == 0 ? "\(student)-\(slot)-retry" : UUID().uuidString
                return (student, slot, key)
            }
            sent += requests.count
            let killAfter = Double.random(in: 0.5...3, using: &random)
            let port = daemon.port
            let results = await withTaskGroup(of: (Int, String?).self) { group in
                for (student, slot, key) in requests {
                    let token = tokens[student] ?? ""
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/students/\(student)/weeks/\(slot)/submissions")
                        request.method = .POST
                        request.headers.add(name: "Authorization", value: "Bearer \(token)")
                        request.headers.add(name: "Content-Type", value: "audio/ogg")
                        request.headers.add(name: "Idempotency-Key", value: key)
                        request.body = .bytes(body)
                        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(60)) else { return (0, nil) }
                        let data = try? await response.body.collect(upTo: 1 << 20)
                        let id = data.flatMap { try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) as? [String: Any] }?["id"] as? String
                        return (Int(response.status.code), id)
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(killAfter))
                    return (-1, nil)
                }
                var results: [(Int, String?)] = []
                for await result in group {
                    if result.0 == -1 {
                        // The daemon dies mid-batch, whatever it is doing.
                        kill(Int32(daemon.pid), SIGKILL)
                        if round == Self.kills { continue }
                    }
                    results.append(result)
                }
                return results
            }
            for (status, id) in results where status == 201 { if let id { accepted.insert(id) } }
            // Replies dropped into the coaches' folders, for students who have a submission.
            let withSubmissions = try state.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT studentId FROM submission WHERE kind = 'assessment'") }
            for student in withSubmissions.shuffled(using: &random).prefix(Self.replies / (Self.kills + 1) / max(1, 1)) where dropped < Self.replies {
                let folder = state.stateDirectory + "/dropbox/" + (coachOf[student] ?? "C01")
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                var data = try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech.opus")))
                data.append(contentsOf: Array("\(dropped)".utf8))
                try data.write(to: URL(fileURLWithPath: folder + "/\(student)_assessment_\(dropped).opus"))
                dropped += 1
            }
            _ = await daemon.terminate(timeout: .seconds(5))
        }

        // Recovery: a last start finishes every queued job and takes every dropped file. It runs
        // on the real clock: under libfaketime Swift's ContinuousClock does not advance, so the
        // drop folder's settle time would never pass (the rounds above take no replies).
        let final = try ServeProcess(stateDirectory: state.stateDirectory, port: try unusedPort(), directory: state.scratch.path)
        #expect(await final.waitUntilReady())
        func settled() -> Bool {
            let pending = (try? state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE state IN ('queued','running')") }) ?? 1
            let inbox = ["C01", "C02", "C03"].flatMap { coach in
                ((try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/dropbox/" + coach)) ?? []).filter { $0.hasSuffix(".opus") }
            }
            return pending == 0 && inbox.isEmpty
        }
        for _ in 0..<1_200 where !settled() { try await Task.sleep(for: .milliseconds(250)) }
        #expect(settled(), "jobs or dropped files left: \(final.log.suffix(2_000))")
        #expect(await final.terminate() == 0)

        let rows = try state.read { db in try Row.fetchAll(db, sql: "SELECT id, studentId, kind, state, receivedAt, audioPath FROM submission") }
        let ids = Set(rows.map { $0["id"] as String })
        #expect(accepted.isSubset(of: ids), "201 without a row: \(accepted.subtracting(ids))")
        let artifacts = state.stateDirectory + "/artifacts/"
        for row in rows where accepted.contains(row["id"] as String) {
            let path = row["audioPath"] as String?
            #expect(path.map { FileManager.default.fileExists(atPath: artifacts + $0) } == true, "no Opus file for \(row["id"] as String)")
        }
        // No student has more than two counted recordings (all of them fall within 7 days here).
        let counted = try state.read { db in
            try Row.fetchAll(db, sql: "SELECT studentId, COUNT(*) AS n FROM submission WHERE kind IN ('week','eoc') AND state != 'failed' GROUP BY studentId")
        }
        #expect(counted.allSatisfy { ($0["n"] as Int) <= 2 }, "\(counted)")
        // Every row's files exist; every file is a row's (temporaries of killed writes aside: the sweep keeps them 10 minutes).
        let referenced = try state.read { db in
            Set(try String.fetchAll(db, sql: """
                SELECT originalPath FROM submission WHERE originalPath IS NOT NULL UNION SELECT audioPath FROM submission WHERE audioPath IS NOT NULL
                UNION SELECT waveformPath FROM submission WHERE waveformPath IS NOT NULL UNION SELECT originalPath FROM feedback WHERE originalPath IS NOT NULL
                UNION SELECT audioPath FROM feedback WHERE audioPath IS NOT NULL UNION SELECT waveformPath FROM feedback WHERE waveformPath IS NOT NULL
                """))
        }
        let files = Set((FileManager.default.enumerator(atPath: artifacts)?.allObjects as? [String] ?? []).filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: artifacts + $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        })
        #expect(referenced.subtracting(files).isEmpty, "rows whose file is missing: \(referenced.subtracting(files))")
        let orphans = files.subtracting(referenced).filter { !$0.hasSuffix(".tmp") }
        #expect(orphans.isEmpty, "files no row points to: \(orphans)")
        // Every dropped reply is in processed/ or rejected/, exactly once.
        let outcomes = ["C01", "C02", "C03"].flatMap { coach in
            ["processed", "rejected"].flatMap { folder in
                ((try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/dropbox/\(coach)/\(folder)")) ?? [])
                    .filter { $0.hasSuffix(".opus") }
            }
        }
        #expect(outcomes.count == dropped, "\(outcomes.count) outcomes for \(dropped) dropped replies")
        #expect(Set(outcomes).count == outcomes.count)
    }
}
