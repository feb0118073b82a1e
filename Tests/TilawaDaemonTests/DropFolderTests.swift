import Foundation
import GRDB
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A daemon's drop-folder service and encode workers on a scratch state directory, with
/// one accepted submission per (student, slot) made through the real intake.
struct DropFolderHarness {
    let daemon: TestDaemon
    /// Passes the drop-folder service has made over the folders (it says so after each).
    let scans = ScanCounter()

    /// `Sendable` on its own: the count lives in a `Mutex`.
    final class ScanCounter: Sendable {
        private let count = Mutex(0)
        func withLock<T>(_ body: (inout Int) -> T) -> T { count.withLock { body(&$0) } }
    }

    /// Waits until the service has made `passes` more full passes (each one after the files
    /// now present were looked at): what "nothing was taken" is checked after, not a sleep.
    func waitForPasses(_ passes: Int = 2) async -> Bool {
        let start = scans.withLock { $0 }
        return await daemon.eventually { scans.withLock { $0 } >= start + passes }
    }
    var dropbox: String { daemon.runtime.configuration.dropbox.path }

    init(settle: Double = 0.3, students: [(String, Slot)] = [("S1001", .week(8))]) async throws {
        daemon = try await TestDaemon {
            $0.dropbox.settleTime = settle
            $0.dropbox.pollInterval = 0.1
        }
        for (student, slot) in students { try submit(student, slot) }
    }

    /// An accepted submission made through the intake (as an upload would be).
    func submit(_ student: String, _ slot: Slot, fixture: String = "speech.opus") throws {
        let staged = daemon.runtime.stateDirectory.newStagingPath(extension: "opus")
        try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent(fixture).path, toPath: staged)
        guard case .accepted = try daemon.runtime.intake.submit(stagedPath: staged, studentId: student, slot: slot, origin: .cli, fileExtension: "opus") else {
            throw HarnessError.notAccepted(student)
        }
    }

    func coachFolder(_ coach: String) throws -> String {
        let path = dropbox + "/" + coach
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs the drop-folder service and the encode workers while `body` runs (from the
    /// service's first scan on), then shuts them down.
    func running(useInotify: Bool = true, _ body: () async throws -> Void) async throws {
        let logger = daemon.logger
        let scans = self.scans
        let services: [any Service] = [
            EncodeWorkerService(runtime: daemon.runtime, pool: daemon.api.pool, wakeup: daemon.api.wakeup, workers: 2,
                                pollInterval: .milliseconds(100), metrics: daemon.api.metrics, logger: logger),
            DropFolderService(runtime: daemon.runtime, pool: daemon.api.pool, jobsWakeup: daemon.api.wakeup, logger: logger,
                              useInotify: useInotify, onScan: { scans.withLock { $0 += 1 } }),
        ]
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { Task { await group.triggerGracefulShutdown() } }
            let before = scans.withLock { $0 }
            _ = await daemon.eventually { scans.withLock { $0 } > before }
            try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    func contents(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func feedbackCount() throws -> Int {
        try daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback") ?? 0 }
    }

    func reason(_ coach: String, _ file: String) -> String? {
        try? String(contentsOfFile: dropbox + "/\(coach)/rejected/\(file).reason.txt", encoding: .utf8)
    }

    func remove() { daemon.remove() }

    enum HarnessError: Error { case notAccepted(String) }
}

func fixturePath(_ name: String) -> String { fixturesDirectory.appendingPathComponent(name).path }

@Suite("Coach drop folder")
struct DropFolderTests {
    @Test("A reply copied in appears under the week with its notes; the student is told which week")
    func copiedReplyWithNotes() async throws {
        let harness = try await DropFolderHarness()
        defer { harness.remove() }
        let folder = try harness.coachFolder("C01")
        try await harness.running {
            try "Beautiful tajweed — watch the madd in ayah 3.".write(toFile: folder + "/S1001_w08.txt", atomically: false, encoding: .utf8)
            try FileManager.default.copyItem(atPath: fixturePath("speech.m4a"), toPath: folder + "/S1001_w08.m4a")
            #expect(await harness.daemon.eventually {
                try harness.daemon.runtime.database.engine.read { db in
                    try String.fetchOne(db, sql: "SELECT state FROM submission WHERE studentId = 'S1001'")
                } == "feedback_ready"
            })
        }
        #expect(harness.contents(folder + "/processed") == ["S1001_w08.m4a", "S1001_w08.txt"])
        #expect(harness.contents(folder).filter { !$0.hasSuffix("processed") } == [])
        let timeline = try await #require(try harness.daemon.runtime.database.timeline(studentId: "S1001", policy: harness.daemon.runtime.policy, now: harness.daemon.clock.now))
        let resource = TimelineResource(timeline, now: harness.daemon.clock.now)
        let week8 = try #require(try JSONSerialization.jsonObject(with: APIJSON.encoder().encode(resource)) as? [String: Any])
        let weeks = try #require(week8["weeks"] as? [[String: Any]])
        let feedback = try #require((weeks[7]["feedback"] as? [[String: Any]])?.first)
        #expect(feedback["notes"] as? String == "Beautiful tajweed — watch the madd in ayah 3.")
        #expect(weeks[7]["state"] as? String == "feedback_ready")
        let events = try await harness.daemon.runtime.database.events(studentId: "S1001", after: 0, limit: 10)
        let ready = try #require(events.first { $0.type == "feedback_ready" })
        let payload = try JSONDecoder.api.decode(EventPayload.self, from: ready.payload)
        #expect(payload.week?.number == 8)
        #expect(payload.week?.title == (timeline.curriculum.first { $0.week == 8 }?.title))
        #expect(payload.coachName != nil)
        #expect(payload.link.hasPrefix("quranflow://weeks/8/feedback/"))
    }

    @Test("Every failure lands in rejected/ with a sentence a coach understands", arguments: [
        ("C02", "S1001_w08.opus", "speech.opus", "not one of your students"),
        ("C01", "S9999_w08.opus", "speech.opus", "No student S9999 is enrolled"),
        ("C01", "S1001_w09.opus", "speech.opus", "No submission from S1001 for week 9 yet"),
        ("C01", "S1001_w08.wav", "digital_silence.wav", "This reply could not be used"),
        ("C01", "S1001.opus", "speech.opus", "S1001.opus"),
        ("C99", "S1001_w08.opus", "speech.opus", "does not belong to a coach"),
        ("C01", "S1001_eoc.opus", "speech.opus",
         "does not give the result: rename it S1001_eoc_pass.opus if the student passed or S1001_eoc_retake.opus for a retake"),
    ])
    func rejected(coach: String, name: String, source: String, sentence: String) async throws {
        let harness = try await DropFolderHarness()
        defer { harness.remove() }
        let folder = try harness.coachFolder(coach)
        try await harness.running {
            try FileManager.default.copyItem(atPath: fixturePath(source), toPath: folder + "/" + name)
            #expect(await harness.daemon.eventually { harness.reason(coach, name) != nil })
        }
        let reason = try #require(harness.reason(coach, name))
        #expect(reason.contains(sentence), "\(reason)")
        #expect(reason.split(separator: "\n").count == 1)
        #expect(harness.contents(folder + "/rejected") == [name, name + ".reason.txt"])
        #expect(try harness.feedbackCount() == 0)
    }

    @Test("A reason a killed process left without its file does not push the next file to name-2; a real earlier file still does")
    func staleReasonFile() async throws {
        let harness = try await DropFolderHarness()
        defer { harness.remove() }
        let folder = try harness.coachFolder("C02")
        try FileManager.default.createDirectory(atPath: folder + "/rejected", withIntermediateDirectories: true)
        // Left by a process killed between writing the reason and moving the file.
        try "stale\n".write(toFile: folder + "/rejected/S1001_w08.opus.reason.txt", atomically: false, encoding: .utf8)
        // A real earlier outcome of another name: file and reason both there.
        try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: folder + "/rejected/S1001_w07.opus")
        try "earlier\n".write(toFile: folder + "/rejected/S1001_w07.opus.reason.txt", atomically: false, encoding: .utf8)
        try await harness.running {
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: folder + "/S1001_w08.opus")
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: folder + "/S1001_w07.opus")
            #expect(await harness.daemon.eventually { harness.contents(folder + "/rejected").count == 6 })
        }
        #expect(harness.contents(folder + "/rejected") == [
            "S1001_w07-2.opus", "S1001_w07-2.opus.reason.txt", "S1001_w07.opus", "S1001_w07.opus.reason.txt",
            "S1001_w08.opus", "S1001_w08.opus.reason.txt",
        ])
        #expect(harness.reason("C02", "S1001_w08.opus")?.contains("not one of your students") == true)
        #expect(harness.reason("C02", "S1001_w07.opus") == "earlier\n")
    }

    @Test("Moves, rsync- and Syncthing-style temporary names: temporaries are never touched, the final name is taken")
    func temporaryNames() async throws {
        let harness = try await DropFolderHarness(students: [("S1001", .week(8)), ("S1003", .week(8))])
        defer { harness.remove() }
        let folder = try harness.coachFolder("C01")
        let outside = harness.daemon.scratch.path("outside.opus")
        try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: outside)
        try await harness.running {
            // mv from elsewhere on the same filesystem.
            try FileManager.default.moveItem(atPath: outside, toPath: folder + "/S1001_w08_take2.opus")
            // rsync writes .name.XXXXXX then renames.
            let rsyncTemp = folder + "/.S1003_w08.opus.Xa81Kq"
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: rsyncTemp)
            let syncthingTemp = folder + "/.syncthing.S1003_w08.opus.tmp"
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: syncthingTemp)
            // Past the settle time, and looked at again since: still untouched.
            try await Task.sleep(for: .milliseconds(400))
            #expect(await harness.waitForPasses())
            #expect(FileManager.default.fileExists(atPath: rsyncTemp))
            #expect(FileManager.default.fileExists(atPath: syncthingTemp))
            try FileManager.default.moveItem(atPath: rsyncTemp, toPath: folder + "/S1003_w08.opus")
            #expect(await harness.daemon.eventually { harness.contents(folder + "/processed").count == 2 },
                    "inbox \(harness.contents(folder)), rejected \(harness.contents(folder + "/rejected"))")
            #expect(FileManager.default.fileExists(atPath: syncthingTemp))
        }
        #expect(try harness.feedbackCount() == 2)
    }

    @Test("A slow writer is not taken before it closes the file")
    func slowWriter() async throws {
        let harness = try await DropFolderHarness(settle: 0.2)
        defer { harness.remove() }
        let folder = try harness.coachFolder("C01")
        let data = try Data(contentsOf: URL(fileURLWithPath: fixturePath("speech_mono_s16_48k.wav")))
        try await harness.running {
            let path = folder + "/S1001_w08.wav"
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            let chunk = data.count / 4
            for part in 0..<4 {
                try handle.write(contentsOf: data.subdata(in: (part * chunk)..<(part == 3 ? data.count : (part + 1) * chunk)))
                // A writer pausing longer than the settle time (the pause is the scenario), and
                // the watcher has looked since: only the missing close keeps the file waiting.
                try await Task.sleep(for: .milliseconds(600))
                #expect(await harness.waitForPasses())
                #expect(FileManager.default.fileExists(atPath: path), "taken while still being written")
            }
            try handle.close()
            #expect(await harness.daemon.eventually { harness.contents(folder + "/processed") == ["S1001_w08.wav"] })
        }
        let feedback = try #require(try await harness.daemon.runtime.database.engine.read { db in try FeedbackRecord.fetchAll(db).first })
        #expect(abs(feedback.analysis.durationSeconds - 11.06) < 0.05, "the whole file was read")
    }

    @Test("The same audio sent to two students is two replies")
    func sameAudioTwoStudents() async throws {
        let harness = try await DropFolderHarness(students: [("S1001", .week(8)), ("S1003", .week(8))])
        defer { harness.remove() }
        let folder = try harness.coachFolder("C01")
        try await harness.running {
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: folder + "/S1001_w08.opus")
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: folder + "/S1003_w08.opus")
            #expect(await harness.daemon.eventually { harness.contents(folder + "/processed").count == 2 })
        }
        #expect(try harness.feedbackCount() == 2)
    }

    @Test("The same file dropped twice makes one reply; a restart mid-batch takes every file exactly once")
    func exactlyOnce() async throws {
        let students = (1...10).map { (String(format: "S%04d", 1000 + $0), Slot.assessment) }
        let harness = try await DropFolderHarness(settle: 0.1, students: students)
        defer { harness.remove() }
        let folders = try ["C01", "C02", "C03"].map { try harness.coachFolder($0) }
        let coachOf = try await harness.daemon.runtime.database.engine.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT studentId AS id, coachId FROM enrolment WHERE coachId IS NOT NULL").map { ($0["id"] as String, $0["coachId"] as String) })
        }
        // 200 distinct replies dropped at once (padding makes each content distinct) and one exact duplicate.
        let base = try Data(contentsOf: URL(fileURLWithPath: fixturePath("speech.opus")))
        var expected = 0
        for index in 0..<200 {
            let student = students[index % students.count].0
            let folder = harness.dropbox + "/" + (coachOf[student] ?? "C01")
            var data = base
            data.append(contentsOf: Array(repeating: UInt8(index % 256), count: index + 1))
            try data.write(to: URL(fileURLWithPath: folder + "/\(student)_assessment_\(index).opus"))
            expected += 1
        }
        let duplicateSource = harness.dropbox + "/" + (coachOf["S1001"] ?? "C01") + "/S1001_assessment_0.opus"
        let duplicate = harness.dropbox + "/" + (coachOf["S1001"] ?? "C01") + "/S1001_assessment_copy.opus"
        try FileManager.default.copyItem(atPath: duplicateSource, toPath: duplicate)

        func taken() -> Int { folders.reduce(0) { $0 + harness.contents($1 + "/processed").count + harness.contents($1 + "/rejected").count } }
        // First run: stop part-way through the batch.
        try await harness.running {
            _ = await harness.daemon.eventually { taken() >= 20 }
        }
        // Second run: finishes the rest; nothing is taken twice. 180 decodes run on the niced
        // background pool: on a machine busy with a build that takes minutes, so the bound is
        // wide — this test is about exactly-once, not speed.
        try await harness.running {
            #expect(await harness.daemon.eventually(seconds: 600) { taken() == expected + 1 })
        }
        let left = folders.flatMap { folder in harness.contents(folder).filter { $0.hasSuffix(".opus") } }
        #expect(left.isEmpty)
        #expect(try harness.feedbackCount() == expected, "the duplicate made no second reply")
        #expect(folders.allSatisfy { harness.contents($0 + "/rejected").isEmpty })
    }

    @Test("Without inotify the polling fallback takes files too")
    func polling() async throws {
        let harness = try await DropFolderHarness()
        defer { harness.remove() }
        let folder = try harness.coachFolder("C01")
        try await harness.running(useInotify: false) {
            try FileManager.default.copyItem(atPath: fixturePath("speech.opus"), toPath: folder + "/s1001_W8.opus")
            #expect(await harness.daemon.eventually { harness.contents(folder + "/processed") == ["s1001_W8.opus"] },
                    "inbox \(harness.contents(folder)), rejected \(harness.contents(folder + "/rejected"))")
        }
    }
}

@Suite("Settle tracker")
struct SettleTrackerTests {
    @Test("A file is ready only once complete and unchanged for the settle time")
    func settles() {
        var tracker = SettleTracker(settle: .seconds(5))
        let start = ContinuousClock.now
        let observation = SettleTracker.Observation(size: 10, modified: Date(timeIntervalSince1970: 1))
        #expect(tracker.observe(["/a"], observation, at: start, complete: false).isEmpty)
        #expect(tracker.observe(["/a"], observation, at: start + .seconds(10), complete: false).isEmpty, "never closed")
        tracker.mark("/a", complete: true)
        #expect(tracker.observe(["/a"], observation, at: start + .seconds(11), complete: false) == ["/a"])
        // Written again after the close: it waits for a new close, then for the settle time.
        let grown = SettleTracker.Observation(size: 20, modified: Date(timeIntervalSince1970: 2))
        #expect(tracker.observe(["/a"], grown, at: start + .seconds(12), complete: false).isEmpty, "changed: wait again")
        #expect(tracker.observe(["/a"], grown, at: start + .seconds(20), complete: false).isEmpty, "no new close yet")
        tracker.mark("/a", complete: true)
        // Unchanged since second 12 and now closed: ready at once.
        #expect(tracker.observe(["/a"], grown, at: start + .seconds(21), complete: false) == ["/a"])
        #expect(tracker.observe([], grown, at: start + .seconds(27), complete: false).isEmpty)
    }

    @Test("A write after the close makes the file incomplete again")
    func writeAfterClose() {
        var tracker = SettleTracker(settle: .seconds(1))
        let start = ContinuousClock.now
        let partial = SettleTracker.Observation(size: 100, modified: Date(timeIntervalSince1970: 2))
        tracker.mark("/a", complete: true)
        tracker.mark("/a", complete: false)
        #expect(tracker.observe(["/a"], partial, at: start, complete: false).isEmpty)
        #expect(tracker.observe(["/a"], partial, at: start + .seconds(5), complete: false).isEmpty)
    }
}

private extension SettleTracker {
    mutating func observe(_ paths: [String], _ observation: Observation, at now: ContinuousClock.Instant, complete: Bool) -> [String] {
        observe(Dictionary(uniqueKeysWithValues: paths.map { ($0, observation) }), now: now) { _ in complete }
    }
}
