import Foundation
import GRDB
import Synchronization
import Testing
@testable import TilawaStore
import TilawaS3
import TilawaTestSupport

/// The soak of DESIGN §13: three daemons on one PostgreSQL database and one S3 store (s3api),
/// uploads spread over them (some retried on another node with their Idempotency-Key, ten of
/// one student at once over all three), while nodes are SIGKILLed and restarted, and one is
/// SIGSTOPped past its job leases and resumed; a real webhook receiver listening. Then the
/// invariants: nothing accepted lost or doubled, the attempt rule exact, every recording
/// encoded once with its objects in the store, every event delivered. Last, coaches' replies
/// dropped into the folder the nodes share while a node is killed: each file one reply.
///
/// `make test-postgres` runs a short version (36 uploads, 3 kills, one 40-s stop);
/// `NODE_SOAK=1` the full one (240 uploads, 8 kills, two stops).
@Suite("Node soak", .enabled(if: PostgresTestServer.isRequested), .heavy)
struct NodeSoakTests {
    static let full = ProcessInfo.processInfo.environment["NODE_SOAK"] != nil
    static let rounds = full ? 8 : 3
    static let uploadsPerRound = full ? 30 : 12
    static let bucket = "tilawa-soak"
    /// The student whose ten simultaneous recordings are spread over the nodes (no other upload is theirs).
    static let burstStudent = "S1009"

    @Test("""
        Three nodes under SIGKILL and SIGSTOP: every 201 has its row and its objects, retries across nodes make one recording, \
        ten at once of one student make exactly 2, at most 2 per student, every job done once, every event delivered
        """)
    func soak() async throws {
        let state = try await CommandLineStateFixture(importSamples: false, engine: .postgres)
        defer { state.remove() }
        let server = try await S3TestServer.start()
        do {
            try await soak(state, server)
        } catch {
            Issue.record("\(error)")
        }
        await server.stop()
    }

    func soak(_ state: CommandLineStateFixture, _ server: S3TestServer) async throws {
        let client = S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey),
                              region: server.region)
        try await client.createBucket(Self.bucket)
        let secrets = state.scratch.path("secrets")
        let shared = try server.nodeEnvironment(secrets: secrets, bucket: Self.bucket, prefix: "soak").merging(state.environment) { $1 }
        try Data(webhookSecret).write(to: URL(fileURLWithPath: secrets + "/webhook.secret"))
        try await SoakTests.importProgramme(into: state)

        let seed = UInt64(Date().timeIntervalSince1970)
        var random = SeededGenerator(seed: seed)
        let students = (1...10).map { String(format: "S%04d", 1000 + $0) }
        let body = try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech.opus")))
        var tokens: [String: String] = [:]
        for student in students {
            tokens[student] = try await state.run(["token", "issue", "--student", student, "--ttl", "1d"], environment: shared)
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let receiver = WebhookReceiver()
        let answers = Answers()
        var stops = 0
        var kills = 0
        // One drop folder on a filesystem every node mounts (here: the same disk).
        let dropbox = state.scratch.path("dropbox")
        var dropped: [String] = []
        try await receiver.serve { url in
            var environment = shared
            environment["TILAWA_WEBHOOK_URL"] = url.absoluteString
            environment["TILAWA_WEBHOOK_SECRET_FILE"] = secrets + "/webhook.secret"
            environment["TILAWA_DROPBOX_PATH"] = dropbox
            environment["TILAWA_DROPBOX_SETTLE_SECONDS"] = "0.5"
            environment["TILAWA_DROPBOX_POLL_INTERVAL_SECONDS"] = "0.5"
            // The soak runs on the real clock at any hour: inside the students' quiet hours
            // (22:00–07:00 by default) their `feedback_ready` would rightly wait for morning.
            environment["TILAWA_NOTIFICATIONS_QUIET_HOURS"] = "none"
            let nodes = try ["a", "b", "c"].map { try SoakNode(name: $0, directory: state.scratch.path($0), environment: environment) }
            defer { for node in nodes { node.process.process.signal(SIGKILL) } }
            for node in nodes where await !node.process.waitUntilReady() {
                Issue.record("node \(node.name) did not start: \(node.process.log)")
                return
            }

            // Ten recordings of S1009 for week 12 at once, spread over the three nodes: exactly 2 counted.
            let burstToken = tokens[Self.burstStudent] ?? ""
            let burst = await withTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<10 {
                    let port = nodes[index % 3].port
                    group.addTask {
                        await SoakUpload(student: Self.burstStudent, slot: "12", key: "burst-\(index)", token: burstToken).send(body: body, port: port)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(burst.filter { $0.0 == 201 }.count == 2 && burst.filter { $0.0 == 429 }.count == 8, "\(burst.map(\.0))")
            for (status, id) in burst where status == 201 { if let id { answers.accept(student: Self.burstStudent, key: "burst", id: id) } }

            for round in 0..<Self.rounds {
                let requests = (0..<Self.uploadsPerRound).map { index -> SoakUpload in
                    // S1010 is enrolled in a semester not open yet: refused, which counts for nothing.
                    let student = students.filter { $0 != Self.burstStudent }.randomElement(using: &random)!
                    let slot = Bool.random(using: &random) ? "assessment" : ["10", "11", "12"].randomElement(using: &random)!
                    let key = index % 3 == 0 ? "\(student)-\(slot)-retry" : "r\(round)-\(index)"
                    return SoakUpload(student: student, slot: slot, key: key, token: tokens[student] ?? "")
                }
                let victim = nodes[Int.random(in: 0..<3, using: &random)]
                // Every third round the victim is stopped past its 30-s leases instead of killed.
                let stopping = round % 3 == 1
                let after = Double.random(in: 0.3...3, using: &random)
                let ports = nodes.map(\.port)
                await withTaskGroup(of: Void.self) { group in
                    for (index, upload) in requests.enumerated() {
                        group.addTask {
                            // A phone whose request failed tries again with the same key, on another node.
                            var result = await upload.send(body: body, port: ports[index % 3])
                            for retry in 1...3 where result.0 == 0 || result.0 >= 500 {
                                try? await Task.sleep(for: .seconds(1))
                                result = await upload.send(body: body, port: ports[(index + retry) % 3])
                            }
                            answers.record(upload: upload, status: result.0, id: result.1)
                        }
                    }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(after))
                        if stopping {
                            victim.process.process.signal(SIGSTOP)
                            try? await Task.sleep(for: .seconds(40))
                            victim.process.process.signal(SIGCONT)
                        } else {
                            victim.process.process.signal(SIGKILL)
                        }
                    }
                }
                if stopping { stops += 1 } else {
                    kills += 1
                    _ = await victim.process.terminate(timeout: .seconds(5))
                    try victim.restart()
                    #expect(await victim.process.waitUntilReady(), "node \(victim.name) did not start again: \(victim.process.log)")
                }
            }

            // Coaches' replies to the recordings encoded so far, dropped into the shared folder,
            // while the node that watches it may be killed: each file one reply.
            let replyAudio = try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech.opus")))
            for _ in 0..<600 where !((try? state.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE state IN ('queued','running')") }) == 0) {
                try await Task.sleep(for: .milliseconds(250))
            }
            let awaiting = try state.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT s.studentId, s.week, e.coachId FROM submission s JOIN enrolment e ON e.id = s.enrolmentId
                    WHERE s.kind = 'week' AND s.encodedAt IS NOT NULL AND s.state != 'failed'
                    GROUP BY s.studentId, s.week, e.coachId ORDER BY s.studentId, s.week
                    """)
            }
            for row in awaiting.prefix(Self.full ? 24 : 8) {
                let coach: String = row["coachId"], student: String = row["studentId"], week: Int = row["week"]
                let folder = dropbox + "/" + coach
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let name = String(format: "%@_w%02d.opus", student, week)
                try replyAudio.write(to: URL(fileURLWithPath: folder + "/." + name + ".tmp"))
                try FileManager.default.moveItem(atPath: folder + "/." + name + ".tmp", toPath: folder + "/" + name)
                dropped.append(coach + "/" + name)
            }
            try await Task.sleep(for: .seconds(Double.random(in: 0.3...1.5, using: &random)))
            let victim = nodes[Int.random(in: 0..<3, using: &random)]
            victim.process.process.signal(SIGKILL)
            kills += 1
            _ = await victim.process.terminate(timeout: .seconds(5))
            try victim.restart()
            #expect(await victim.process.waitUntilReady(), "node \(victim.name) did not start again: \(victim.process.log)")
            func waiting() -> [String] {
                dropped.filter { FileManager.default.fileExists(atPath: dropbox + "/" + $0) }
            }
            for _ in 0..<1_200 where !waiting().isEmpty { try await Task.sleep(for: .milliseconds(250)) }
            #expect(waiting().isEmpty, "replies never taken: \(waiting())")

            let settled = try await SoakInvariants.waitUntilSettled(state)
            #expect(settled, "jobs or events left (seed \(seed))")
            for node in nodes { _ = await node.process.terminate() }
            let fenced = nodes.map { $0.allLogs.components(separatedBy: "under a lost lease").count - 1 }.reduce(0, +)
            print("node soak (seed \(seed)): \(kills) kills, \(stops) stops of 40 s, \(fenced) writes refused to a node past its lease")
        }

        // Nothing accepted lost; a key answered 201 twice names one recording.
        let rows = try SoakInvariants.submissions(in: state)
        let ids = Set(rows.map { $0["id"] as String })
        let accepted = answers.acceptedIds
        #expect(accepted.count > 2, "few uploads accepted (seed \(seed))")
        #expect(accepted.isSubset(of: ids), "201 without a row: \(accepted.subtracting(ids))")
        #expect(answers.keysAnsweredTwoWays.isEmpty, "one key, two recordings: \(answers.keysAnsweredTwoWays)")
        // The attempt rule: at most 2 counted per student (all within 7 days); the burst gave exactly 2.
        let counted = try SoakInvariants.countedPerStudent(in: state)
        #expect(counted.values.allSatisfy { $0 <= 2 }, "\(counted)")
        #expect(counted[Self.burstStudent] == 2)
        // Every recording encoded by exactly one job, done; its objects in the store.
        try SoakInvariants.expectEncodedOnce(rows, in: state)
        let objects = try await SoakInvariants.storedObjects(client, bucket: Self.bucket, prefix: "soak")
        SoakInvariants.expectStored(rows, in: objects)
        // Every reply dropped taken once: in processed/, one reply each, encoded by one job, its objects in the store.
        let rejected = dropped.filter { FileManager.default.fileExists(atPath: dropbox + "/" + $0.replacingOccurrences(of: "/", with: "/rejected/")) }
        #expect(rejected.isEmpty, "replies rejected: \(rejected)")
        #expect(dropped.allSatisfy { FileManager.default.fileExists(atPath: dropbox + "/" + $0.replacingOccurrences(of: "/", with: "/processed/")) })
        let replies = try SoakInvariants.replies(in: state)
        #expect(replies.count == dropped.count, "\(dropped.count) files dropped, \(replies.count) replies")
        SoakInvariants.expectRepliesEncodedOnce(replies)
        SoakInvariants.expectStored(replies, in: objects, label: "reply ")
        // Every event delivered (duplicates after kills carry the same webhook-id), signed, in order per recipient.
        let events = try await SoakInvariants.expectEventsDelivered(in: state, to: receiver, awaitingDeliveries: false)
        // Each encode and each reply recorded once in effect: one coach notice per recording, one
        // student notice per reply.
        let reviews = SoakInvariants.subjects(of: events, type: "submission_ready_for_review", member: "submission_id")
        let ready = SoakInvariants.subjects(of: events, type: "feedback_ready", member: "feedback_id")
        #expect(!reviews.isEmpty && reviews.values.allSatisfy { $0 == 1 }, "a recording announced twice: \(reviews.filter { $0.value > 1 })")
        #expect(ready.count == replies.count && ready.values.allSatisfy { $0 == 1 }, "\(ready.count) feedback_ready for \(replies.count) replies")
        print("node soak (seed \(seed)): \(accepted.count) recordings accepted, \(rows.count) rows, \(replies.count) of \(dropped.count) dropped replies, \(events.count) events, "
              + "\(receiver.calls.count - events.count) POSTs received again")
    }

    /// What the clients were answered, shared by the upload tasks.
    final class Answers: Sendable {
        private let state = Mutex<(accepted: [String: Set<String>], all: Set<String>)>(([:], []))

        func record(upload: SoakUpload, status: Int, id: String?) {
            guard status == 201, let id else { return }
            accept(student: upload.student, key: upload.key, id: id)
        }

        func accept(student: String, key: String, id: String) {
            state.withLock { state in
                state.accepted["\(student) \(key)", default: []].insert(id)
                state.all.insert(id)
            }
        }

        var acceptedIds: Set<String> { state.withLock { $0.all } }
        /// Keys (other than the burst's, ten keys in one name) answered 201 with two different recordings.
        var keysAnsweredTwoWays: [String] {
            state.withLock { $0.accepted.filter { !$0.key.hasSuffix(" burst") && $0.value.count > 1 }.map(\.key) }
        }
    }
}
