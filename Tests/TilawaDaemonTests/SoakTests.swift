import AsyncHTTPClient
import Foundation
import GRDB
import Synchronization
import NIOCore
import Testing
@testable import TilawaStore
import TilawaTestSupport

/// The crash soak: uploads (some retried with their Idempotency-Key, many racing for the same
/// students) and coach replies dropped into the folder while the daemon is SIGKILLed at random
/// moments and restarted, with a real webhook receiver listening; then the invariants.
///
/// `make test` runs a short version (40 uploads, 40 replies, 2 kills); `make soak` sets
/// `SOAK=1` for the full one (200 uploads, 200 replies, 4 kills), three times in a row.
///
/// It runs on the real clock — the drop folder's settle time and the webhook's signature
/// window need time to pass — with a semester that started twelve weeks before today, so
/// weeks 10 to 12 are open whatever day it runs.
@Suite("Crash soak", .heavy)
struct SoakTests {
    static let full = ProcessInfo.processInfo.environment["SOAK"] != nil
    static let uploads = full ? 200 : 40
    static let replies = full ? 200 : 40
    static let kills = full ? 4 : 2

    @Test("Nothing accepted is lost, no third attempt in 7 days, no orphan or missing file, every reply taken once, every event delivered")
    func soak() async throws {
        let state = try await CommandLineStateFixture(importSamples: false)
        defer { state.remove() }
        try await Self.importProgramme(into: state)
        let secretPath = state.scratch.path("webhook.secret")
        try Data(webhookSecret).write(to: URL(fileURLWithPath: secretPath))

        let seed = UInt64(Date().timeIntervalSince1970)
        var random = SeededGenerator(seed: seed)
        let students = (1...10).map { String(format: "S%04d", 1000 + $0) }
        let body = try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech.opus")))
        var tokens: [String: String] = [:]
        for student in students {
            tokens[student] = try await state.run(["token", "issue", "--student", student, "--ttl", "1d"])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let coachOf = try state.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT studentId AS id, coachId FROM enrolment WHERE coachId IS NOT NULL").map { ($0["id"] as String, $0["coachId"] as String) })
        }

        let receiver = WebhookReceiver()
        var accepted: Set<String> = []
        var dropped: [String] = []
        try await receiver.serve { url in
            let environment = [
                "TILAWA_WEBHOOK_URL": url.absoluteString, "TILAWA_WEBHOOK_SECRET_FILE": secretPath,
                "TILAWA_DROPBOX_SETTLE_SECONDS": "0.5", "TILAWA_DROPBOX_POLL_INTERVAL_SECONDS": "0.2",
                // The real clock at any hour: inside quiet hours (22:00–07:00 by default) the
                // replies' `feedback_ready` would rightly wait for the students' morning.
                "TILAWA_NOTIFICATIONS_QUIET_HOURS": "none",
            ]
            for round in 0..<Self.kills {
                let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment)
                guard await daemon.waitUntilReady() else { Issue.record("daemon did not start (seed \(seed)): \(daemon.log)"); return }
                let requests = (0..<(Self.uploads / Self.kills)).map { index -> SoakUpload in
                    let student = students.randomElement(using: &random)!
                    let slot = Bool.random(using: &random) ? "assessment" : ["10", "11", "12"].randomElement(using: &random)!
                    // A third of the keys repeat an earlier one of the same student and slot: retries.
                    let key = index % 3 == 0 ? "\(student)-\(slot)-retry" : UUID().uuidString
                    return SoakUpload(student: student, slot: slot, key: key, token: tokens[student] ?? "")
                }
                // Replies, each at its moment in the round: most for the assessment students
                // keep sending, some for week 13, which nobody records (rejected/).
                let drops = (0..<(Self.replies / Self.kills)).map { index -> Drop in
                    let student = students.randomElement(using: &random)!
                    let slot = Int.random(in: 0..<7, using: &random) == 0 ? "w13" : "assessment"
                    let name = "\(student)_\(slot)_r\(round)n\(index).opus"
                    let folder = state.stateDirectory + "/dropbox/" + (coachOf[student] ?? "C01")
                    return Drop(folder: folder, name: name, after: Double.random(in: 0...3, using: &random))
                }
                dropped += drops.map(\.name)
                let killAfter = Double.random(in: 0.5...4, using: &random)
                let (port, process) = (daemon.port, daemon.process)
                // The first round's kill waits for a first 201 (at most a minute): on a loaded
                // machine every upload of a round may still be running at a random early kill,
                // and a soak with nothing accepted checks nothing.
                let answered = Accepted()
                let results = await withTaskGroup(of: (Int, String?).self) { group in
                    for upload in requests {
                        group.addTask {
                            let result = await upload.send(body: body, port: port)
                            if result.0 == 201 { answered.add() }
                            return result
                        }
                    }
                    for drop in drops {
                        group.addTask {
                            try? await Task.sleep(for: .seconds(drop.after))
                            drop.write(body)
                            return (-2, nil)
                        }
                    }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(killAfter))
                        for _ in 0..<600 where round == 0 && !answered.any {
                            try? await Task.sleep(for: .milliseconds(100))
                        }
                        // The daemon dies mid-batch, whatever it is doing.
                        process.signal(SIGKILL)
                        return (-1, nil)
                    }
                    var results: [(Int, String?)] = []
                    for await result in group where result.0 >= 0 { results.append(result) }
                    return results
                }
                for (status, id) in results where status == 201 { if let id { accepted.insert(id) } }
                _ = await daemon.terminate(timeout: .seconds(5))
            }

            // Recovery: a last start finishes every queued job, takes every dropped reply and
            // delivers every event.
            let final = try ServeProcess(state: state, port: try unusedPort(), environment: environment)
            #expect(await final.waitUntilReady())
            func settled() -> Bool {
                let pending = (try? state.read { db in
                    try Int.fetchOne(db, sql: """
                        SELECT (SELECT COUNT(*) FROM job WHERE state IN ('queued','running'))
                             + (SELECT COUNT(*) FROM event WHERE deliveredAt IS NULL)
                        """)
                }) ?? 1
                let inbox = ["C01", "C02", "C03"].flatMap { coach in
                    ((try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/dropbox/" + coach)) ?? []).filter { $0.hasSuffix(".opus") }
                }
                return pending == 0 && inbox.isEmpty
            }
            for _ in 0..<1_200 where !settled() { try await Task.sleep(for: .milliseconds(250)) }
            #expect(settled(), "jobs, events or dropped files left (seed \(seed)): \(final.log.suffix(2_000))")
            #expect(await final.terminate() == 0)
        }

        let rows = try state.read { db in try Row.fetchAll(db, sql: "SELECT id, studentId, kind, state, receivedAt, audioPath FROM submission") }
        let ids = Set(rows.map { $0["id"] as String })
        #expect(accepted.count > 0, "no upload was accepted (seed \(seed))")
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
        // A SIGKILL between an original's placing and its row's commit leaves a file no row
        // points to; the sweep keeps such files for its grace (10 minutes: another process may
        // be about to commit) and then removes them. Run it now as it will run then.
        let sweep = try state.withDatabase { database in
            try ArtifactSweeper(database: database, stateDirectory: StateDirectory(path: state.stateDirectory), grace: 0)
                .sweep(now: Date().addingTimeInterval(1), originalsRetentionDays: nil)
        }
        #expect(sweep.missing.isEmpty && sweep.orphansRemoved <= Self.uploads, "seed \(seed): \(sweep)")
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
        // An encoded recording's MP4 and CAF variants go with its Ogg file.
        let orphans = files.subtracting(referenced).filter {
            !$0.hasSuffix(".tmp") && !(ArtifactStore.audioPath(ofVariant: $0).map(referenced.contains) ?? false)
        }
        #expect(orphans.isEmpty, "files no row points to: \(orphans)")
        // Every dropped reply is in processed/ or rejected/, exactly once; week 13 replies are all refused.
        var outcomes: [String: [String]] = [:]
        for coach in ["C01", "C02", "C03"] {
            for folder in ["processed", "rejected"] {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/dropbox/\(coach)/\(folder)")) ?? []
                outcomes[folder, default: []] += names.filter { $0.hasSuffix(".opus") }
            }
        }
        let taken = outcomes.values.flatMap { $0 }
        #expect(taken.count == dropped.count, "\(taken.count) outcomes for \(dropped.count) dropped replies")
        #expect(Set(taken) == Set(dropped))
        #expect(outcomes["processed", default: []].allSatisfy { !$0.contains("_w13_") })
        let feedbackRows = try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback") ?? 0 }
        #expect(feedbackRows == outcomes["processed", default: []].count, "one feedback row per processed reply")
        // The webhook got every event, each signed, in order per recipient; duplicates only from kills.
        let events = try state.read { db in try EventRecord.fetchAll(db, orderBy: "seq") }
        #expect(Set(receiver.takenOnce) == Set(events.map(\.id)), "events not received: \(Set(events.map(\.id)).subtracting(receiver.takenOnce).count)")
        #expect(receiver.calls.allSatisfy { $0.signatureError == nil })
        #expect(callsAreInOrderPerRecipient(receiver.calls, events: events))
        print("soak (seed \(seed)): \(accepted.count) uploads answered 201, \(rows.count) submission rows, "
              + "\(outcomes["processed", default: []].count) replies processed and \(outcomes["rejected", default: []].count) rejected, "
              + "\(events.count) events, \(receiver.calls.count - events.count) POSTs received again after kills")
    }

    /// The sample programme with its first semester moved to start on the Saturday twelve
    /// to thirteen weeks before today (the second twenty weeks after that), and the sample students.
    static func importProgramme(into state: CommandLineStateFixture) async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var start = calendar.date(byAdding: .day, value: -84, to: Date())!
        while calendar.component(.weekday, from: start) != 7 { start = calendar.date(byAdding: .day, value: -1, to: start)! }
        func day(_ date: Date) -> String {
            let day = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", day.year!, day.month!, day.day!)
        }
        // The next semester (its students' uploads are refused as not yet open) twenty weeks later.
        let next = calendar.date(byAdding: .day, value: 140, to: start)!
        let sample = try String(contentsOfFile: CommandLineStateFixture.sample("program.yaml"), encoding: .utf8)
        let moved = sample
            .replacingOccurrences(of: "start: 2026-09-05", with: "start: \(day(start))")
            .replacingOccurrences(of: "start: 2027-01-09", with: "start: \(day(next))")
        try #require(moved.contains("start: \(day(start))") && moved.contains("start: \(day(next))"), "the sample programme's semesters changed")
        let path = state.scratch.path("program.yaml")
        try moved.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await state.run(["roster", "import", path, CommandLineStateFixture.sample("students.csv")])
        try #require(result.status == 0, "\(result.stderr)")
    }
}

/// One upload of the soak.
struct SoakUpload: Sendable {
    var student: String
    var slot: String
    var key: String
    var token: String

    /// Sends it; the HTTP status (0 when the daemon died first) and the submission id of a 201.
    func send(body: Data, port: Int) async -> (Int, String?) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/students/\(student)/weeks/\(slot)/submissions")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "audio/ogg")
        request.headers.add(name: "Idempotency-Key", value: key)
        request.body = .bytes(ByteBuffer(bytes: body))
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(60)) else { return (0, nil) }
        let data = try? await response.body.collect(upTo: 1 << 20)
        let id = data.flatMap { try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) as? [String: Any] }?["id"] as? String
        return (Int(response.status.code), id)
    }
}

/// One reply dropped into a coach's folder, rsync-style: written under a hidden temporary
/// name, then renamed. Its content differs from every other reply's (its name is appended),
/// so none is a duplicate of another.
private struct Drop: Sendable {
    var folder: String
    var name: String
    var after: Double

    func write(_ audio: Data) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var data = audio
        data.append(contentsOf: Array(name.utf8))
        let temporary = folder + "/.\(name).\(UUID().uuidString.prefix(6))"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
            try FileManager.default.moveItem(atPath: temporary, toPath: folder + "/" + name)
        } catch {
            Issue.record("could not drop \(name): \(error)")
        }
    }
}

/// How many uploads of a soak round were answered 201 so far (shared by the round's tasks).
final class Accepted: Sendable {
    private let count = Mutex(0)

    func add() { count.withLock { $0 += 1 } }
    var any: Bool { count.withLock { $0 > 0 } }
}
