import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
import TilawaStore
import TilawaTestSupport

@Suite("Status report: what it reads and how it judges")
struct StatusReporterTests {
    private let now = TestDaemon.midSemester

    /// A probe of a loopback port where nothing listens: the daemon is down.
    private func downProbe() throws -> DaemonProbe {
        DaemonProbe(url: "http://127.0.0.1:\(try unusedPort())/readyz")
    }

    /// Disk thresholds that never fire, so the machine's own disk cannot change a verdict.
    private var calmDisk: StatusThresholds {
        var thresholds = StatusThresholds()
        thresholds.diskWarningPercent = 0
        thresholds.diskCriticalPercent = 0
        return thresholds
    }

    @Test("No state directory at all: an empty installation, daemon down is WARNING, or CRITICAL when expected")
    func emptyInstallation() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let configuration = TilawaConfiguration(stateDirectory: scratch.path("never-created"), workingDirectory: scratch.path)
        let report = await StatusReporter(configuration: configuration, thresholds: calmDisk).report(now: now, probe: try downProbe())
        #expect(report.state == .warning)
        #expect(report.check("daemon")?.state == .warning)
        #expect(report.daemon.up == false && report.daemon.error == "connection refused")
        #expect(report.check("state_dir")?.state == .ok)
        #expect(report.check("database")?.state == .ok)
        #expect(report.database.exists == false)
        #expect(report.awaitingFeedback.count == 0 && report.uploads.last7d.accepted == 0)
        #expect(report.checks.filter { $0.state != .ok }.map(\.name) == ["daemon"])
        // The report looks, it never creates.
        #expect(!FileManager.default.fileExists(atPath: scratch.path("never-created")))

        let expecting = await StatusReporter(configuration: configuration, thresholds: calmDisk, expectRunning: true)
            .report(now: now, probe: try downProbe())
        #expect(expecting.state == .critical)
        #expect(expecting.check("daemon")?.state == .critical)
    }

    @Test("A fresh database (roster only): everything zero, the JSON has every member, nulls included")
    func freshDatabase() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let report = await StatusReporter(configuration: daemon.runtime.configuration, thresholds: calmDisk)
            .report(now: now, probe: try downProbe())
        #expect(report.check("database")?.state == .ok)
        // The size is SQLite's file's, or what PostgreSQL reports for the database.
        #expect(report.database.exists && report.database.sizeBytes > 0)
        #expect(report.state == .warning, "only the daemon is down")
        let object = try #require(try JSONSerialization.jsonObject(with: try APIJSON.encoder().encode(report)) as? [String: Any])
        for member in ["state", "generated_at", "state_dir", "daemon", "uploads", "awaiting_feedback", "overdue", "overdue_by_coach",
                       "encode_queue", "dropbox", "notifications", "disk", "database", "missing_artifacts", "checks", "reply_turnaround"] {
            #expect(object[member] != nil, "\(member)")
        }
        // Nothing fell due yet: no share, rather than 0 % or 100 %.
        let turnaround = try #require(object["reply_turnaround"] as? [String: Any])
        #expect(turnaround["share"] is NSNull && turnaround["due"] as? Int == 0 && (turnaround["by_coach"] as? [String: Any])?.isEmpty == true)
        let awaiting = try #require(object["awaiting_feedback"] as? [String: Any])
        #expect(awaiting["oldest_age_seconds"] is NSNull)
        let daemonObject = try #require(object["daemon"] as? [String: Any])
        #expect(daemonObject["uptime_seconds"] is NSNull && daemonObject["up"] as? Bool == false)
    }

    @Test("The cluster view: nodes by their heartbeats, live or not, with the jobs and uploads each holds; expired leases counted")
    func clusterView() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let database = daemon.runtime.database
        let seed = StatusSeed(database: database)
        let wall = Date()
        try await database.recordNodeSeen(id: "202@b", startedAt: wall - 900, now: wall - 120)
        try await database.recordNodeSeen(id: "303@c", startedAt: wall - 9_000, now: wall - 7_200)
        // Leases far from running out, however slowly this machine runs the test.
        try seed.runningJob(worker: "101@a#0", leaseExpiresAt: wall + 3_600)
        try seed.runningJob(worker: "101@a#1", leaseExpiresAt: wall + 3_600)
        // A's neighbour with a longer pid is not A's.
        try seed.runningJob(worker: "1011@a#0", leaseExpiresAt: wall + 3_600)
        try seed.runningJob(worker: "202@b#0", leaseExpiresAt: wall - 60)
        let upload = ResumableUploadRecord(
            id: "upl_1", studentId: "S1001", enrolmentId: nil, slot: "12", uploadProtocol: .tus, length: 300, fileExtension: "wav", fileName: nil,
            recordedAt: nil, now: now, expiresAt: now + 86_400, idempotencyKey: nil, submissionId: "sub_1")
        _ = try await database.createUpload(upload, maxOpenPerStudent: 3, budgetBytes: 1 << 30, maxUploadBytes: 1 << 20, now: now)
        #expect(try await database.holdUpload(id: "upl_1", holder: "202@b", until: wall + 3_600, now: wall) == .held)
        // A's heartbeat, just now.
        try await database.recordNodeSeen(id: "101@a", startedAt: wall - 600)

        let report = await StatusReporter(configuration: daemon.runtime.configuration, thresholds: calmDisk)
            .report(now: now, probe: try downProbe())
        let cluster = report.cluster
        #expect(cluster.engine == (TestEngine.current == .postgres ? "postgres" : "sqlite"))
        #expect(cluster.nodes.map(\.id) == ["101@a", "202@b"], "the node not seen for two hours is forgotten")
        #expect(cluster.nodes.map(\.live) == [true, false])
        #expect(cluster.nodes.map(\.jobsRunning) == [2, 1] && cluster.nodes.map(\.uploadsHeld) == [0, 1])
        #expect(cluster.nodes.first?.seenAgeSeconds ?? 99 < 60 && cluster.nodes.last?.seenAgeSeconds ?? 0 >= 120)
        #expect(cluster.expiredJobLeases == 1)
        let text = StatusTextRenderer(colour: false).render(report)
        #expect(text.contains("101@a") && text.contains("2 jobs running") && text.contains("not seen for") && text.contains("1 job being given back"),
                "\(text)")
    }

    @Test("Overdue work, undelivered events, a failed job and a drop-folder rejection: WARNING, each check says so")
    func seededWarnings() async throws {
        let daemon = try await TestDaemon { configuration in
            configuration.webhook.url = URL(string: "http://127.0.0.1:9/hook")
        }
        defer { daemon.remove() }
        let seed = StatusSeed(database: daemon.runtime.database)
        let hour: TimeInterval = 3_600
        let store = daemon.runtime.stateDirectory.artifactStore
        // S1001 and S1003 belong to coach C01, S1002 to C02 (config/students.csv).
        try seed.submission("sub-old", student: "S1001", state: "awaiting_feedback", receivedAt: now - 60 * hour,
                            originalPath: nil, originalBytes: 5_000, audioPath: "submissions/old.opus", audioBytes: 300)
        try seed.submission("sub-late", student: "S1002", state: "awaiting_feedback", receivedAt: now - 50 * hour,
                            originalPath: "originals/late.wav", originalBytes: 4_000, audioPath: "submissions/late.opus", audioBytes: 200)
        try seed.submission("sub-new", student: "S1003", state: "awaiting_feedback", receivedAt: now - 2 * hour,
                            originalPath: "originals/new.wav", originalBytes: 1_000, audioPath: "submissions/new.opus", audioBytes: 100,
                            waveformPath: "submissions/new.json")
        try seed.submission("sub-failed", student: "S1003", state: "failed", receivedAt: now - 1 * hour, originalBytes: 10)
        for path in ["submissions/old.opus", "submissions/late.opus", "originals/late.wav", "originals/new.wav",
                     "submissions/new.opus", "submissions/new.json"] {
            try writeFile(store.path(path))
        }
        try seed.rejection(student: "S1001", code: "too_quiet", at: now - 1 * hour)
        try seed.rejection(student: "S1001", code: "too_quiet", at: now - 30 * hour)
        try seed.rejection(student: "S1002", code: "attempt_limit", at: now - 3 * hour)
        try seed.rejection(student: "S1002", code: "silent", at: now - 10 * 24 * hour)
        try seed.event(student: "S1001", at: now - 25 * 60)
        try seed.event(student: "S1002", at: now - 2 * 60)
        try seed.event(student: "S1002", at: now - 3 * hour, deliveredAt: now - 3 * hour)
        try seed.job(state: "failed", createdAt: now - 5 * hour)
        try seed.job(state: "queued", createdAt: now - 90)
        try seed.job(state: "done", createdAt: now - 9 * hour)
        try seed.dropFile(coach: "C01", outcome: "rejected", at: now - 2 * hour)
        try seed.dropFile(coach: "C01", outcome: "rejected", at: now - 48 * hour)

        let dropbox = daemon.runtime.configuration.dropbox.path
        try writeFile(dropbox + "/C01/S1001_w12.m4a")
        try writeFile(dropbox + "/C01/S1001_w12.txt")
        try writeFile(dropbox + "/C01/.S1002_w12.m4a.x7Yz")
        try writeFile(dropbox + "/C01/S1003_w11.m4a.part")
        try writeFile(dropbox + "/C01/processed/S1003_w10.m4a")
        try writeFile(dropbox + "/C02/rejected/S9999_w01.mp3")
        try writeFile(dropbox + "/C02/rejected/S9999_w01.mp3.reason.txt")
        try writeFile(dropbox + "/C02/S1002_eoc.wav")

        let report = await StatusReporter(configuration: daemon.runtime.configuration, thresholds: calmDisk)
            .report(now: now, probe: try downProbe())
        #expect(report.state == .warning)
        #expect(report.check("feedback_overdue")?.state == .warning)
        #expect(report.check("feedback_overdue")?.message.contains("C01 1, C02 1") == true)
        #expect(report.check("notifications")?.state == .warning)
        #expect(report.check("encode_jobs")?.state == .warning)
        #expect(report.check("dropbox_rejections")?.state == .warning)
        #expect(report.check("missing_artifacts")?.state == .ok)
        #expect(!report.checks.contains { $0.state == .critical || $0.state == .unknown })

        #expect(report.awaitingFeedback == .init(count: 3, oldestAgeSeconds: 60 * 3_600))
        #expect(report.overdue.count == 2 && report.overdue.dueHours == 48)
        #expect(report.overdueByCoach == ["C01": 1, "C02": 1])
        #expect(report.uploads.last24h == .init(accepted: 1, rejected: 2, rejectedByReason: ["too_quiet": 1, "attempt_limit": 1]))
        #expect(report.uploads.last7d == .init(accepted: 3, rejected: 3, rejectedByReason: ["too_quiet": 2, "attempt_limit": 1]))
        #expect(report.notifications == .init(count: 2, oldestAgeSeconds: 25 * 60, webhookConfigured: true))
        #expect(report.encodeQueue == .init(count: 1, oldestAgeSeconds: 90, queued: 1, running: 0, failed: 1))
        #expect(report.dropbox.backlog == 2, "S1001_w12.m4a and S1002_eoc.wav; not notes, temporary names or processed/")
        #expect(report.dropbox.rejected == 1 && report.dropbox.rejectedLast24h == 1)
        // Encoded audio of every row, originals only where the row still points to one.
        #expect(report.disk.artifactBytes == 300 + 200 + 100 + 4_000 + 1_000)
        #expect(report.missingArtifacts.count == 0 && report.missingArtifacts.checkedFiles == 6)
    }

    @Test("""
        Reply turnaround over the last 28 days of due replies: answered in time, late and never, by coach and overall, in \
        status (JSON and text) and /metrics; withdrawn and superseded recordings and replies not yet due are not counted
        """)
    func replyTurnaround() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let seed = StatusSeed(database: daemon.runtime.database)
        let hour: TimeInterval = 3_600
        // S1001 and S1003 are C01's, S1002 is C02's; each reply falls due 48 h after its recording.
        try seed.submission("in-time", student: "S1001", state: "feedback_ready", receivedAt: now - 100 * hour)
        try seed.feedback("f1", to: "in-time", coach: "C01", receivedAt: now - 60 * hour)
        try seed.submission("late", student: "S1003", state: "feedback_ready", receivedAt: now - 100 * hour)
        try seed.feedback("f2", to: "late", coach: "C01", receivedAt: now - 50 * hour)
        try seed.submission("never", student: "S1003", state: "awaiting_feedback", receivedAt: now - 70 * hour)
        try seed.submission("c02", student: "S1002", state: "feedback_ready", receivedAt: now - 60 * hour)
        try seed.feedback("f3", to: "c02", coach: "C02", receivedAt: now - 59 * hour)
        // Not counted: not due yet, withdrawn, superseded, and due before the window.
        try seed.submission("recent", student: "S1001", state: "awaiting_feedback", receivedAt: now - 2 * hour)
        try seed.submission("withdrawn", student: "S1001", state: "withdrawn", receivedAt: now - 90 * hour)
        try seed.submission("superseded", student: "S1002", state: "superseded", receivedAt: now - 90 * hour)
        try seed.submission("old", student: "S1002", state: "awaiting_feedback", receivedAt: now - 40 * 24 * hour)

        let report = await StatusReporter(configuration: daemon.runtime.configuration, thresholds: calmDisk)
            .report(now: now, probe: try downProbe())
        let turnaround = report.replyTurnaround
        #expect(turnaround.windowDays == 28 && turnaround.dueHours == 48)
        #expect(turnaround.due == 4 && turnaround.inTime == 2 && turnaround.share == 0.5)
        let byCoach: [String: StatusReport.ReplyTurnaroundReport.Figure] = [
            "C01": .init(due: 3, inTime: 1, share: 1.0 / 3), "C02": .init(due: 1, inTime: 1, share: 1),
        ]
        #expect(turnaround.byCoach == byCoach)
        let json = try #require(try JSONSerialization.jsonObject(with: APIJSON.encoder().encode(report)) as? [String: Any])
        let member = try #require(json["reply_turnaround"] as? [String: Any])
        #expect(member["in_time"] as? Int == 2 && member["share"] as? Double == 0.5 && member["window_days"] as? Int == 28)
        #expect((member["by_coach"] as? [String: [String: Any]])?["C02"]?["in_time"] as? Int == 1)
        let text = StatusTextRenderer(colour: false).render(report)
        #expect(text.contains("in time (28 days)") && text.contains("50 % (2 of 4)") && text.contains("33 % (1 of 3)"), "\(text)")

        // The same figures at /metrics, per coach.
        try await daemon.application().live { client in
            daemon.clock.set(now)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            for line in [#"tilawa_replies_due{coach="C01"} 3"#, #"tilawa_replies_in_time{coach="C01"} 1"#,
                         #"tilawa_replies_due{coach="C02"} 1"#, #"tilawa_replies_in_time{coach="C02"} 1"#] {
                #expect(metrics.contains(line + "\n") || metrics.contains(line + ".0\n"), "\(line) in\n\(metrics)")
            }
        }
    }

    @Test("Without webhook.url the outbox is the feed: undelivered events are counted, not a warning")
    func noWebhook() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try StatusSeed(database: daemon.runtime.database).event(student: "S1001", at: now - 86_400)
        let report = await StatusReporter(configuration: daemon.runtime.configuration, thresholds: calmDisk)
            .report(now: now, probe: try downProbe())
        #expect(report.notifications.count == 1 && report.notifications.webhookConfigured == false)
        #expect(report.check("notifications")?.state == .ok)
    }

    @Test("A row of the last 7 days pointing to a missing file is CRITICAL and named")
    func missingArtifact() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let seed = StatusSeed(database: daemon.runtime.database)
        let store = daemon.runtime.stateDirectory.artifactStore
        try seed.submission("sub-here", student: "S1001", state: "feedback_ready", receivedAt: now - 3_600,
                            audioPath: "submissions/2026/11/here.opus", audioBytes: 10)
        try seed.submission("sub-gone", student: "S1002", state: "awaiting_feedback", receivedAt: now - 3_600,
                            audioPath: "submissions/2026/11/gone.opus", audioBytes: 10)
        // Older than the window: left to the daemon's full sweep.
        try seed.submission("sub-ancient", student: "S1003", state: "feedback_ready", receivedAt: now - 30 * 86_400,
                            audioPath: "submissions/2026/10/ancient.opus", audioBytes: 10)
        try writeFile(store.path("submissions/2026/11/here.opus"))

        let reporter = StatusReporter(configuration: daemon.runtime.configuration, thresholds: calmDisk)
        let report = await reporter.report(now: now, probe: try downProbe())
        #expect(report.state == .critical)
        #expect(report.check("missing_artifacts")?.state == .critical)
        #expect(report.missingArtifacts.count == 1 && report.missingArtifacts.checkedFiles == 2)
        #expect(report.missingArtifacts.examples == ["submissions/2026/11/gone.opus"])
        #expect(report.check("missing_artifacts")?.message.contains("submissions/2026/11/gone.opus") == true)

        // The daemon's full sweep sees the old row too, and leaves its count for status.
        try writeFile(store.path("submissions/2026/11/gone.opus"))
        let sweep = try ArtifactSweeper(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory)
            .sweep(now: now, originalsRetentionDays: nil)
        #expect(sweep.missing == ["submissions/2026/10/ancient.opus"])
        let after = await reporter.report(now: now, probe: try downProbe())
        #expect(after.missingArtifacts.count == 0)
        #expect(after.missingArtifacts.lastFullSweep?.count == 1)
        #expect(after.check("missing_artifacts")?.state == .critical)

        try writeFile(store.path("submissions/2026/10/ancient.opus"))
        _ = try ArtifactSweeper(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory)
            .sweep(now: now, originalsRetentionDays: nil)
        let restored = await reporter.report(now: now, probe: try downProbe())
        #expect(restored.missingArtifacts.lastFullSweep?.count == 0)
        #expect(restored.check("missing_artifacts")?.state == .ok)
    }

    @Test("A corrupt database is UNKNOWN, and nothing pretends its backlogs are empty")
    func corruptDatabase() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let configuration = TilawaConfiguration(stateDirectory: scratch.path("var"), workingDirectory: scratch.path)
        try writeFile(scratch.path("var/tilawa.sqlite"), bytes: 8_192)
        let report = await StatusReporter(configuration: configuration, thresholds: calmDisk).report(now: now, probe: try downProbe())
        #expect(report.state == .unknown)
        #expect(report.check("database")?.state == .unknown)
        #expect(report.check("feedback_overdue") == nil && report.check("missing_artifacts") == nil)
        #expect(report.check("daemon")?.state == .warning)
    }

    @Test("Disk thresholds", arguments: [
        (warning: 0.0, critical: 0.0, expected: StatusState.ok),
        (warning: 100.0, critical: 0.0, expected: StatusState.warning),
        (warning: 100.0, critical: 100.0, expected: StatusState.critical),
    ])
    func diskThresholds(warning: Double, critical: Double, expected: StatusState) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var thresholds = StatusThresholds()
        thresholds.diskWarningPercent = warning
        thresholds.diskCriticalPercent = critical
        let configuration = TilawaConfiguration(stateDirectory: scratch.path("var"), workingDirectory: scratch.path)
        let report = await StatusReporter(configuration: configuration, thresholds: thresholds).report(now: now, probe: try downProbe())
        #expect(report.check("disk_space")?.state == expected)
        #expect(report.disk.freeBytes.map { $0 > 0 } == true)
        #expect(report.disk.path == scratch.path, "measured at the nearest existing folder")
    }

    @Test("The worst state wins: OK < WARNING < UNKNOWN < CRITICAL; exit codes 0 1 2 3")
    func worstState() {
        #expect(StatusState.worst([]) == .ok)
        #expect(StatusState.worst([.ok, .warning, .ok]) == .warning)
        #expect(StatusState.worst([.warning, .unknown]) == .unknown)
        #expect(StatusState.worst([.unknown, .critical, .warning]) == .critical)
        #expect(StatusState.allCases.map(\.exitCode) == [0, 1, 2, 3])
    }

    @Test("A daemon that accepts but never answers is down after the probe's deadline, not a hang")
    func hungDaemon() async throws {
        let listener = try silentListener()
        defer { close(listener.descriptor) }
        let daemon = await DaemonProbe(url: "http://127.0.0.1:\(listener.port)/readyz", timeout: .milliseconds(300))
            .probe(expectRunning: true)
        #expect(daemon.up == false && daemon.ready == false)
        #expect(daemon.error == "no answer within the deadline")
    }

    @Test("A live daemon: the probe sees it up with its uptime, and GET /v1/status answers ops only")
    func liveDaemon() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let port = client.port
            let reporter = StatusReporter(configuration: daemon.runtime.configuration, thresholds: calmDisk, expectRunning: true)
            daemon.clock.advance(by: 125)
            // A deadline that only guards a hang: what the probe reads is checked here, not how
            // fast a loaded box answers (the 5-s default was exceeded beside a cold build).
            let probe = DaemonProbe(url: "http://127.0.0.1:\(port)/readyz", timeout: .seconds(120))
            let report = await reporter.report(now: daemon.clock.now, probe: probe)
            #expect(report.daemon.up && report.daemon.ready, "\(report.daemon)")
            #expect(report.daemon.uptimeSeconds == 125)
            #expect(report.daemon.pid == Int(getpid()))
            #expect(report.check("daemon")?.state == .ok)
            #expect(report.state == .ok)

            let ops = try await client.execute(uri: "/v1/status", method: .get, headers: try await daemon.headers(.ops, "ops"))
            #expect(ops.status == .ok)
            let body = try #require(ops.json)
            // The route judges the disk with the default thresholds; everything else is fine.
            let checks = try #require(body["checks"] as? [[String: Any]])
            #expect(checks.filter { $0["name"] as? String != "disk_space" }.allSatisfy { $0["state"] as? String == "ok" })
            let daemonBody = try #require(body["daemon"] as? [String: Any])
            #expect(daemonBody["up"] as? Bool == true && daemonBody["uptime_seconds"] as? Int == 125)
            #expect(checks.contains { $0["name"] as? String == "missing_artifacts" })

            for (role, subject) in [(Role.student, "S1001"), (Role.coach, "C01")] {
                let denied = try await client.execute(uri: "/v1/status", method: .get, headers: try await daemon.headers(role, subject))
                #expect(denied.status == .forbidden, "\(role)")
            }
            #expect(try await client.execute(uri: "/v1/status", method: .get).status == .unauthorized)
        }
    }
}
