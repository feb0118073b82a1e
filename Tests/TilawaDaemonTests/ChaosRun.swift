import AsyncHTTPClient
import Foundation
import GRDB
import Testing
@testable import TilawaStore
import TilawaS3
import TilawaTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The chaos soak's faults (ChaosSoakTests), each a phase with phones uploading and coaches
/// replying, each followed by the invariants (`expectInvariants(after:)`). Every fault is undone
/// on every path out of its phase: the store started again, the filler deleted, the node
/// continued; the test's teardown stops whatever is left.
struct ChaosRun: Sendable {
    /// How long the faults and the calm around them last.
    struct Settings: Sendable {
        /// The S3 store stopped (at least: until an upload was answered meanwhile).
        var outage: Duration
        /// Node b's state directory full (at least: until b answered an upload meanwhile).
        var fullDisk: Duration
        /// Uploads after each fault is over.
        var calm: Duration
        var repliesPerPhase: Int
    }

    let state: CommandLineStateFixture
    let postgres: PostgresTestServer
    let s3: S3TestServer
    let store: S3Client
    let bucket: String
    let prefix: String
    let receiver: WebhookReceiver
    /// `a`, and `b`, whose state directory is on `small` when the test could mount one.
    let nodes: [SoakNode]
    let small: SmallFilesystem?
    let phones: ChaosPhones
    let log: ChaosLog
    let tokens: [String: String]
    let seed: UInt64
    let settings: Settings
    /// Ends every phase's name (" (round 2)").
    var tag = ""

    var a: SoakNode { nodes[0] }
    var b: SoakNode { nodes[1] }
    var sender: ChaosSender { phones.sender }

    /// Traffic without a fault: the nodes work before anything is done to them.
    func baseline() async throws {
        let (a, b) = (self.a, self.b)
        let name = "baseline" + tag
        try await phase(name, route: { $0 % 2 == 0 ? a : b }) {
            await awaitAccepted(after: 0)
            try await Task.sleep(for: settings.calm)
        }
        try await expectInvariants(after: name)
    }

    /// (a) PostgreSQL restarted twice (`pg_ctl restart -m fast`: every session ended), each
    /// time with uploads in flight; the fault lasts until the nodes accept a recording again.
    /// Returns what students and coaches got meanwhile.
    func postgresRestarts() async throws -> String {
        let (a, b) = (self.a, self.b)
        let name = "PostgreSQL restarted twice" + tag
        var recoveries: [Recovery] = []
        try await phase(name, route: { $0 % 2 == 0 ? a : b }) {
            await awaitAccepted(after: 0)
            log.setFault(true)
            for _ in 0..<2 {
                let before = log.acceptedUploads(in: name)
                try await postgres.restart()
                recoveries.append(await recovery(since: .now, uploadsBefore: before))
            }
            log.setFault(false)
            try await Task.sleep(for: settings.calm)
        }
        let line = "while PostgreSQL restarted twice, uploads were answered \(log.faultSummary(in: name, kind: .upload)); "
            + "replies \(log.faultSummary(in: name, kind: .reply)); after each restart \(recoveries.map(\.description).joined(separator: ", then "))"
        try await expectInvariants(after: name)
        return line
    }

    /// (b) The S3 store stopped (for `settings.outage`, and until an upload was refused for it),
    /// then started again on the same endpoint. Returns what students got meanwhile: their
    /// uploads' answers, playing an earlier recording, and `/readyz` — 200 `degraded` naming
    /// `artifact_store` every time it was asked, so a balancer keeps every node and students
    /// get our 503 with Retry-After, not the balancer's error.
    func storeOutage() async throws -> String {
        let (a, b) = (self.a, self.b)
        let name = "S3 store stopped" + tag
        let earlier = log.accepted(.upload).first
        var readyAnswers: [String: Int] = [:]
        var stopped = Duration.zero
        var recovered = Recovery.never
        var stoppingTook = Duration.zero
        try await phase(name, route: { $0 % 2 == 0 ? a : b }) {
            await awaitAccepted(after: 0)
            // The fault counts from when every server of the store has exited: while they stop
            // (SIGTERM, up to 10 s) a proxy still answers on the connections it holds.
            let stopping = ContinuousClock.now
            try await s3.pause()
            let began = ContinuousClock.now
            stoppingTook = began - stopping
            log.setFault(true)
            do {
                repeat {
                    if let earlier, let id = earlier.id {
                        let play = ChaosRequest(kind: .playback, sender: earlier.request.sender, target: id, key: "",
                                                token: tokens[earlier.request.sender] ?? "")
                        await sender.send(play, to: a, retrying: false)
                    }
                    let ready = await readiness(of: b)
                    readyAnswers[ready, default: 0] += 1
                    try await Task.sleep(for: .seconds(2))
                } while ContinuousClock.now - began < settings.outage
                    || (!refusedUploadDuringFault(in: name) && ContinuousClock.now - began < TestTime.hangLimit)
            } catch {
                try? await s3.resume()
                throw error
            }
            try await s3.resume()
            stopped = ContinuousClock.now - began
            recovered = await recovery(since: .now, uploadsBefore: log.acceptedUploads(in: name))
            log.setFault(false)
            try await Task.sleep(for: settings.calm)
        }
        let ready = readyAnswers.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        let line = "while the S3 store was stopped for \(stopped.components.seconds) s (its servers took \(Recovery.seconds(stoppingTook)) to exit), students' uploads were answered "
            + "\(log.faultSummary(in: name, kind: .upload)); playing an earlier recording: \(log.faultSummary(in: name, kind: .playback)); "
            + "the balancer's /readyz: \(ready); once it was started again \(recovered)"
        #expect(refusedUploadDuringFault(in: name), "no upload was refused while the S3 store was stopped: \(line)")
        // Asked only while the store was stopped: the node stays in rotation, saying what fails.
        #expect(!readyAnswers.isEmpty && readyAnswers.keys.allSatisfy { $0 == Self.storeDegraded },
                "b's /readyz while the S3 store was stopped: \(ready)")
        try await expectInvariants(after: name)
        return line
    }

    /// (c) Node b's state directory (a 64 MiB tmpfs) filled to its last byte while uploads go
    /// to b (for `settings.fullDisk`, and until b refused one for it), then freed. Skipped,
    /// saying why, when the test could not mount the filesystem.
    func diskFull(skipped: String?) async throws -> String {
        guard let small else { return "the full disk was skipped: \(skipped ?? "no small filesystem")" }
        let b = self.b
        let name = "state directory full" + tag
        var full = Duration.zero
        var recovered = Recovery.never
        try await phase(name, route: { _ in b }, replyNode: b) {
            await awaitAccepted(after: 0, by: b)
            log.setFault(true)
            let filler = try small.fillCompletely()
            let began = ContinuousClock.now
            do {
                repeat {
                    try await Task.sleep(for: .milliseconds(500))
                } while ContinuousClock.now - began < settings.fullDisk
                    || (!refusedUploadDuringFault(in: name, by: b) && ContinuousClock.now - began < TestTime.hangLimit)
            } catch {
                try? FileManager.default.removeItem(atPath: filler)
                throw error
            }
            try FileManager.default.removeItem(atPath: filler)
            full = ContinuousClock.now - began
            recovered = await recovery(since: .now, uploadsBefore: log.acceptedUploads(in: name, by: b.name), by: b)
            log.setFault(false)
            try await Task.sleep(for: settings.calm)
        }
        let line = "with b's state directory full for \(full.components.seconds) s, its uploads were answered \(log.faultSummary(in: name, kind: .upload)); "
            + "once it was freed \(recovered)"
        #expect(refusedUploadDuringFault(in: name, by: b), "b refused nothing while its disk was full: \(line)")
        try await expectInvariants(after: name)
        return line
    }

    /// (d) Node a SIGSTOPped past its job leases while it holds a job: b takes the jobs over and
    /// does them while a sleeps; then SIGCONT, and a's late writes are refused by their fence.
    func nodeStopped() async throws -> String {
        let (a, b) = (self.a, self.b)
        let name = "node a stopped past its leases" + tag
        var held: [Int64] = []
        var takenOver = false
        var stopped = Duration.zero
        var recovered = Recovery.never
        try await phase(name, route: { $0 % 2 == 0 ? a : b }) {
            // Only a stop while a holds a job tests the leases: a is stopped as soon as one of its
            // workers holds one (or after its sixth recording, should b's take every job first).
            _ = await polling { try !jobsHeld(by: a).isEmpty || log.acceptedUploads(in: name, by: a.name) >= 6 }
            log.setFault(true)
            a.process.process.signal(SIGSTOP)
            let began = ContinuousClock.now
            do {
                held = try jobsHeld(by: a)
                // Past its leases and b's rescue (every third of a lease), then until b has done them.
                try await Task.sleep(for: .seconds(AppDatabase.jobLeaseDuration + 10))
                takenOver = await polling { try jobsDone(held) }
            } catch {
                a.process.process.signal(SIGCONT)
                throw error
            }
            a.process.process.signal(SIGCONT)
            stopped = ContinuousClock.now - began
            recovered = await recovery(since: .now, uploadsBefore: log.acceptedUploads(in: name, by: a.name), by: a)
            log.setFault(false)
            try await Task.sleep(for: settings.calm)
        }
        #expect(takenOver, "jobs a held when it was stopped were not done by b meanwhile: \(held)")
        try await expectInvariants(after: name)
        let fenced = a.process.log.components(separatedBy: "under a lost lease").count - 1
        return "node a stopped for \(stopped.components.seconds) s holding \(held.count) jobs, which b did meanwhile; "
            + "\(fenced) of a's writes so far refused under a lost lease; once it was continued \(recovered)"
    }

    // MARK: Phases

    /// Runs phase `name`: the phones uploading to the nodes `route` picks, and coaches' replies
    /// sent to `replyNode` (a's unless given: the first at once, the others once the fault is
    /// on), while `fault` runs; then waits for every request under way to get its last answer.
    func phase(_ name: String, route: @escaping @Sendable (Int) -> SoakNode, replyNode: SoakNode? = nil,
               _ fault: () async throws -> Void) async throws {
        let (phones, sender, log, to) = (self.phones, self.sender, self.log, replyNode ?? self.a)
        log.begin(phase: name)
        let replies = try replyRequests()
        let running = RunningFlag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await phones.upload(while: running, route: route) }
            group.addTask {
                for (index, reply) in replies.enumerated() {
                    while index > 0, !log.faultIsOn, running.isOn, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
                    await sender.send(reply, to: to)
                }
            }
            do {
                try await fault()
            } catch {
                running.turnOff()
                throw error
            }
            running.turnOff()
            try await group.waitForAll()
        }
    }

    /// Replies to recordings waiting for one (encoded weeks and placement assessments), each by
    /// the student's coach, `repliesPerPhase` at most, no recording twice.
    func replyRequests() throws -> [ChaosRequest] {
        let answered = Set(log.answers.filter { $0.request.kind == .reply }.map(\.request.target))
        let rows = try state.read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.id, e.coachId FROM submission s JOIN enrolment e ON e.id = s.enrolmentId
                WHERE s.kind IN ('week', 'assessment') AND s.state = 'awaiting_feedback' AND e.coachId IS NOT NULL
                ORDER BY s.receivedAt, s.id
                """)
        }
        return rows.filter { !answered.contains($0["id"] as String) }.prefix(settings.repliesPerPhase).map { row -> ChaosRequest in
            let coach = row["coachId"] as String
            return ChaosRequest(kind: .reply, sender: coach, target: row["id"] as String, key: "reply-\(UUID().uuidString)", token: tokens[coach] ?? "")
        }
    }

    /// Waits (pacing, within the hang limit) until `node`, or any node, has answered more than
    /// `already` uploads 201 in the current phase.
    func awaitAccepted(after already: Int, by node: SoakNode? = nil) async {
        let phase = log.phase
        _ = await eventually { log.acceptedUploads(in: phase, by: node?.name) > already }
    }

    /// How long a node took to serve again after a fault was undone: to `/readyz` `200 ok`
    /// (every node, or `node`), and to the next recording taken — the phones' part of that is
    /// the Retry-After they were told to wait.
    struct Recovery: CustomStringConvertible {
        var ready: Duration?
        var accepted: Duration?
        static let never = Recovery(ready: nil, accepted: nil)

        static func seconds(_ duration: Duration?) -> String {
            guard let duration else { return "never" }
            let (whole, atto) = duration.components
            return String(format: "%.1f s", Double(whole) + Double(atto) / 1e18)
        }

        var description: String {
            let seconds = Self.seconds
            return "ready again after \(seconds(ready)), the next recording taken after \(seconds(accepted))"
        }
    }

    /// Measures `Recovery` from `undone`, the moment the fault ended; `uploadsBefore` the
    /// recordings taken so far in the phase (of `node`, when one is named).
    func recovery(since undone: ContinuousClock.Instant, uploadsBefore: Int, by node: SoakNode? = nil) async -> Recovery {
        var whole = true
        for each in node.map({ [$0] }) ?? nodes {
            let answer = await readinessOnceOK(of: each)
            whole = whole && answer == "200 ok"
        }
        let ready = whole ? ContinuousClock.now - undone : nil
        let phase = log.phase
        let taken = await eventually { log.acceptedUploads(in: phase, by: node?.name) > uploadsBefore }
        return Recovery(ready: ready, accepted: taken ? ContinuousClock.now - undone : nil)
    }

    /// Whether `node`, or any node, refused an upload for the fault (503 or 507) while `phase`'s
    /// fault was on: the fault is kept up until one did, so its check never depends on how fast
    /// the machine uploads.
    func refusedUploadDuringFault(in phase: String, by node: SoakNode? = nil) -> Bool {
        log.answers.contains {
            $0.phase == phase && $0.duringFault && $0.request.kind == .upload && [503, 507].contains($0.status) && (node == nil || $0.node == node?.name)
        }
    }

    /// `/readyz` of a node serving while the S3 store does not answer it.
    static let storeDegraded = "200 degraded artifact_store"

    /// What `node`'s `/readyz` answers: `200 ok`, `200 degraded artifact_store` (the failing
    /// checks named), `503 database_unavailable` (the problem's code), `no answer`.
    func readiness(of node: SoakNode) async -> String {
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(node.port)/readyz")
        guard let response = try? await sender.http.execute(request, timeout: LiveClient.hangLimit) else { return "no answer" }
        let body = try? await response.body.collect(upTo: 1 << 20)
        let object = body.flatMap { try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) as? [String: Any] } ?? [:]
        if let code = object["code"] as? String { return "\(response.status.code) \(code)" }
        let failing = (object["failing_checks"] as? [[String: Any]] ?? []).compactMap { $0["check"] as? String }
        let status = (object["status"] as? String).map { " " + $0 } ?? ""
        return "\(response.status.code)\(status)" + failing.map { " " + $0 }.joined()
    }

    /// Waits until `condition`, which reads the database, holds: asked every 250 ms (each read
    /// is a connection of its own), within the hang limit; whether it came.
    func polling(_ condition: () throws -> Bool) async -> Bool {
        for _ in 0..<(TestTime.hangSeconds * 4) {
            if (try? condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return false
    }

    /// The jobs `node`'s workers hold (`lockedBy` is `pid@host#n`).
    func jobsHeld(by node: SoakNode) throws -> [Int64] {
        try state.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM job WHERE state = 'running' AND lockedBy LIKE ?", arguments: ["\(node.process.pid)@%"])
        }
    }

    func jobsDone(_ ids: [Int64]) throws -> Bool {
        try ids.allSatisfy { id in
            try state.read { db in try String.fetchOne(db, sql: "SELECT state FROM job WHERE id = ?", arguments: [id]) } == "done"
        }
    }
}
