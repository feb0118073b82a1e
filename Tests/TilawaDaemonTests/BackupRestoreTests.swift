import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// Backups made while the daemon works, restored into a new state directory a second daemon
/// starts from (DESIGN §12).
@Suite("Backup and restore beside a running daemon", .enabled(if: TestEngine.current == .sqlite, "backups are SQLite's: on PostgreSQL they are refused"))
struct BackupRestoreTests {
    /// An upload over the suite's own connection helper: nine at once beside a backup may take
    /// longer than the live test client's 20-s read limit on a loaded machine.
    private func upload(_ client: LiveClient, _ daemon: TestDaemon, _ student: String, week: Int) async throws -> HTTPResponse.Status {
        try await daemon.request(port: client.port, method: .post, "/v1/students/\(student)/weeks/\(week)/submissions",
                                 headers: try await daemon.headers(.student, student, [.contentType: "audio/ogg"]),
                                 body: Data(buffer: try TestDaemon.fixture("speech.opus"))).status
    }

    @Test("Made while uploads arrive: verified, restored, and a daemon on the copy finishes its encode jobs with the same rules")
    func backupWhileUploading() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        daemon.clock.advance(by: 60)
        let backup = daemon.scratch.path("backup")
        let restored = daemon.scratch.path("restored")
        let students = ["S1001", "S1002", "S1003", "S1004", "S1005", "S1006", "S1007", "S1008"]
        // No encode workers: every accepted recording's job is still queued when the backup takes it.
        try await daemon.application(encoding: false).live { client in
            #expect(try await upload(client, daemon, "S1009", week: 12) == .created)
            let maker = BackupMaker(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory)
            let now = daemon.clock.now
            async let made = onOwnThread { try maker.create(at: backup, now: now) }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for student in students { group.addTask { try await upload(client, daemon, student, week: 12) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .created }, "\(statuses)")
            let report = try await made
            #expect(report.missing.isEmpty && report.files >= 1)
        }
        // Off the concurrency pool, as the daemon runs them: the flush of a backup or restore may
        // wait for everything else written to the disk (a build beside the suite).
        let verified = try await onOwnThread { try BackupVerifier.verify(backup) }
        let now = daemon.clock.now
        let restoredReport = try await onOwnThread { try BackupRestorer.restore(from: backup, to: restored, now: now) }
        #expect(restoredReport.files == verified.files)

        // Every file a restored row names is there with the manifest's SHA-256.
        let manifest = try BackupVerifier.readManifest(backup)
        let sums = Dictionary(manifest.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let copy = try DatabaseQueue(path: restored + "/tilawa.sqlite")
        let (paths, pending, wasAccepted): ([String], Int, Set<String>) = try await copy.read { db in
            let paths = try String.fetchAll(db, sql: """
                SELECT originalPath FROM submission WHERE originalPath IS NOT NULL
                UNION ALL SELECT audioPath FROM submission WHERE audioPath IS NOT NULL
                UNION ALL SELECT waveformPath FROM submission WHERE waveformPath IS NOT NULL
                """)
            let pending = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE state IN ('queued', 'running')") ?? 0
            let ids = Set(try String.fetchAll(db, sql: "SELECT id FROM submission"))
            return (paths, pending, ids)
        }
        try copy.close()
        #expect(!paths.isEmpty && pending == wasAccepted.count, "every recording in the backup still waits for its encode")
        for path in paths {
            let sum = try #require(sums["artifacts/" + path], "\(path) is in the manifest")
            let data = try Data(contentsOf: URL(fileURLWithPath: restored + "/artifacts/" + path))
            #expect(SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() == sum, "\(path)")
        }

        // The original's rules over the recordings the backup holds are the copy's.
        let original = daemon.runtime.database
        let second = try await TestDaemon(at: daemon.clock.now, stateDirectory: restored)
        defer { second.remove() }
        for student in students + ["S1009"] {
            let here = try await second.runtime.database.attemptStatus(studentId: student, policy: second.runtime.policy, now: daemon.clock.now)
            let there = try await original.attemptStatus(studentId: student, policy: daemon.runtime.policy, now: daemon.clock.now)
            let inBackup = try await original.writer.read { db in
                try String.fetchAll(db, sql: "SELECT id FROM submission WHERE studentId = ?", arguments: [student])
            }.filter(wasAccepted.contains).count
            #expect(here?.used == inBackup && (there?.used ?? 0) >= inBackup, "\(student)")
        }
        try await second.application().live { client in
            // The restored daemon encodes what was waiting, and serves it (S1009 is C03's).
            #expect(await second.eventually {
                try second.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE state = 'processing'")
                } == 0
            })
            let queue = try await client.execute(uri: "/v1/coaches/C03/queue", method: .get, headers: try await second.headers(.coach, "C03"))
            let listed = Set((queue.json?["items"] as? [[String: Any]] ?? []).compactMap { ($0["submission"] as? [String: Any])?["id"] as? String })
            let expected = try await second.runtime.database.coachQueue(coachId: "C03", now: second.clock.now).map(\.submission.id)
            #expect(!listed.isEmpty && listed == Set(expected))
            for id in listed {
                let audio = try await client.execute(uri: "/v1/submissions/\(id)/audio", method: .get, headers: try await second.headers(.coach, "C03"))
                #expect(audio.status == .ok)
            }
            let status = try await client.execute(uri: "/v1/status", method: .get, headers: try await second.headers(.ops, "ops"))
            #expect(status.status == .ok)
        }
        let restoredAt = try await second.runtime.database.engine.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'restored_from_backup_of'")
        }
        #expect(restoredAt != nil)

        // Webhook deliveries resume from the copy: each event it holds undelivered is sent once
        // (signed, as ever); those it holds as delivered are not sent again.
        let (waiting, delivered): (Set<String>, Set<String>) = try await second.runtime.database.engine.read { db in
            (Set(try String.fetchAll(db, sql: "SELECT id FROM event WHERE deliveredAt IS NULL")),
             Set(try String.fetchAll(db, sql: "SELECT id FROM event WHERE deliveredAt IS NOT NULL")))
        }
        #expect(!waiting.isEmpty && !delivered.isEmpty)
        let receiver = WebhookReceiver(faults: [])
        try await receiver.serve { url in
            let services = RunningServices([WebhookNotifierService(
                database: second.runtime.database, endpoint: WebhookEndpoint(url: url, secret: webhookSecret), options: fastOptions(),
                wakeup: WakeupSignal(), metrics: TilawaMetrics(), logger: quietLogger)])
            #expect(await second.eventually {
                try second.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE deliveredAt IS NULL") } == 0
            })
            try await services.stop()
        }
        let sent = receiver.answered
        #expect(Set(sent).isSuperset(of: waiting) && Set(sent).isDisjoint(with: delivered), "\(sent.count) sent")
        #expect(sent.count == Set(sent).count, "no event sent twice")
    }

    @Test("A restore refuses a directory that is not empty and writes nothing there")
    func restoreRefusesNonEmpty() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        let backup = daemon.scratch.path("backup")
        let maker = BackupMaker(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory)
        let now = daemon.clock.now
        _ = try await onOwnThread { try maker.create(at: backup, now: now) }
        let target = daemon.scratch.path("busy")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: target + "/notes.txt"))
        await #expect(throws: BackupError.self) { try await onOwnThread { try BackupRestorer.restore(from: backup, to: target, now: Date()) } }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["notes.txt"])
        // And a second backup into the same directory is refused: nothing is overwritten.
        await #expect(throws: BackupError.self) { try await onOwnThread { try maker.create(at: backup, now: Date()) } }
    }
}

/// A backup made while coaches' replies arrive through the drop folder and are encoded.
@Suite("Backup beside the drop folder", .enabled(if: TestEngine.current == .sqlite, "backups are SQLite's: on PostgreSQL they are refused"))
struct BackupDropFolderTests {
    @Test("Replies dropped and recordings arriving while the backup runs: every reply and recording the copy has is whole — its file there with its hash, or its job queued and finished by a daemon on the copy")
    func backupWhileRepliesArrive() async throws {
        let students: [(String, Slot)] = [("S1001", .week(8)), ("S1003", .week(8)), ("S1005", .week(8)), ("S1001", .week(9)), ("S1003", .week(9))]
        let arriving = ["S1002", "S1004", "S1006", "S1007", "S1008", "S1009"]
        let harness = try await DropFolderHarness(settle: 0.2, students: students)
        defer { harness.remove() }
        let daemon = harness.daemon
        let backup = daemon.scratch.path("backup")
        let restored = daemon.scratch.path("restored")
        let folder = try harness.coachFolder("C01")
        try await harness.running {
            #expect(await daemon.eventually {
                try daemon.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE state = 'awaiting_feedback'")
                } == students.count
            })
            for (student, slot) in students {
                try FileManager.default.copyItem(atPath: fixturePath("speech.m4a"), toPath: folder + "/\(student)_w0\(slot.week ?? 0).m4a")
            }
            // Backed up once replies have begun to arrive: some are in, encoded or not, others still on their way.
            #expect(await daemon.eventually { try harness.feedbackCount() >= 2 })
            // Recordings keep arriving through the intake (as uploads do) while the backup is made.
            let maker = BackupMaker(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory)
            let now = daemon.clock.now
            async let made = onOwnThread { try maker.create(at: backup, now: now) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for student in arriving { group.addTask { try await onOwnThread { try harness.submit(student, .week(12)) } } }
                try await group.waitForAll()
            }
            #expect(try await made.missing.isEmpty)
            // The original daemon takes every reply in the end.
            #expect(await daemon.eventually { try harness.feedbackCount() == students.count })
        }
        _ = try await onOwnThread { try BackupVerifier.verify(backup) }
        let restoreAt = daemon.clock.now
        let report = try await onOwnThread { try BackupRestorer.restore(from: backup, to: restored, now: restoreAt) }
        let second = try await TestDaemon(at: daemon.clock.now, stateDirectory: restored)
        defer { second.remove() }
        let replies: [(id: String, state: String, audio: String?)] = try await second.runtime.database.engine.read { db in
            try Row.fetchAll(db, sql: "SELECT id, state, audioPath FROM feedback").map { ($0["id"], $0["state"], $0["audioPath"]) }
        }
        #expect(replies.count >= 2, "the copy holds the replies taken before it")
        let manifest = try BackupVerifier.readManifest(backup)
        let listed = Set(manifest.files.map(\.path))
        for reply in replies where reply.state == "ready" {
            #expect(reply.audio.map { listed.contains("artifacts/" + $0) } == true, "ready reply \(reply.id) has its audio in the backup")
        }
        // Each recording the copy holds has its files there with the manifest's hash (the
        // original and, once encoded, its Ogg and waveform), and the copy's attempt window is
        // what the original's was over those recordings.
        let sums = Dictionary(manifest.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let (recordings, paths): ([String: String], [String]) = try await second.runtime.database.engine.read { db in
            (Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, studentId FROM submission").map { ($0["id"] as String, $0["studentId"] as String) }),
             try String.fetchAll(db, sql: """
                SELECT originalPath FROM submission WHERE originalPath IS NOT NULL
                UNION ALL SELECT audioPath FROM submission WHERE audioPath IS NOT NULL
                UNION ALL SELECT waveformPath FROM submission WHERE waveformPath IS NOT NULL
                """))
        }
        #expect(recordings.count >= students.count)
        for path in paths {
            let sum = try #require(sums["artifacts/" + path], "\(path) is in the manifest")
            let data = try Data(contentsOf: URL(fileURLWithPath: restored + "/artifacts/" + path))
            #expect(SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() == sum, "\(path)")
        }
        let originalIds = Set(try await daemon.runtime.database.engine.read { db in try String.fetchAll(db, sql: "SELECT id FROM submission") })
        #expect(Set(recordings.keys).isSubset(of: originalIds))
        for student in Set(students.map(\.0) + arriving) {
            let here = try await second.runtime.database.attemptStatus(studentId: student, policy: second.runtime.policy, now: daemon.clock.now)
            #expect(here?.used == recordings.values.filter { $0 == student }.count, "\(student)")
        }
        // What was still being encoded in the snapshot is queued in the copy, and a daemon on it finishes it.
        try await second.application().live { _ in
            #expect(await second.eventually {
                try second.runtime.database.engine.read { db in
                    try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM feedback WHERE state != 'ready') + (SELECT COUNT(*) FROM submission WHERE state = 'processing')")
                } == 0
            })
        }
        let finished: [String?] = try await second.runtime.database.engine.read { db in try String.fetchAll(db, sql: "SELECT audioPath FROM feedback") }
        for path in finished {
            #expect(path.map { FileManager.default.fileExists(atPath: restored + "/artifacts/" + $0) } == true)
        }
        // Nothing invented, nothing doubled: the copy's replies are the original's, one per recording.
        let original = Set(try await daemon.runtime.database.engine.read { db in try String.fetchAll(db, sql: "SELECT id FROM feedback") })
        #expect(Set(replies.map(\.id)).isSubset(of: original))
        let perRecording = try await second.runtime.database.engine.read { db in
            try Int.fetchOne(db, sql: "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM feedback GROUP BY submissionId)")
        }
        #expect(perRecording == nil || perRecording == 1)
        _ = report
    }
}
