import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Artifact store and start-up sweep")
struct ArtifactStoreTests {
    @Test("Durable writes land under family/year/month and leave no temporary file", arguments: TestEngine.all)
    func write(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let artifacts = store.state.artifactStore
        let relative = artifacts.relativePath(.submissions, name: "x.peaks.json", date: TestStore.newYork(2026, 11, 3))
        #expect(relative == "submissions/2026/11/x.peaks.json")
        try artifacts.write(Data("{}".utf8), to: relative)
        #expect(artifacts.allFiles() == [relative])
        #expect(try String(contentsOfFile: artifacts.path(relative), encoding: .utf8) == "{}")
    }

    /// An encode writes a work file of its own and publishes it after its lease check. A
    /// worker killed (SIGKILL) before publishing leaves that file and the encoder's own
    /// temporary beside it: nothing points to them, the artifact's name was never touched, and
    /// the sweep removes them once past its grace.
    @Test("A work file: hidden beside the artifact, published by rename; one a killed worker left is swept, the artifact's name untouched", arguments: TestEngine.all)
    func workFiles(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let artifacts = store.state.artifactStore
        let relative = "submissions/2026/09/rec.opus"
        let published = try artifacts.workPath(for: relative)
        #expect(URL(fileURLWithPath: published).deletingLastPathComponent().path == URL(fileURLWithPath: artifacts.path(relative)).deletingLastPathComponent().path)
        let name = URL(fileURLWithPath: published).lastPathComponent
        #expect(name.hasPrefix(".") && name.hasSuffix(".tmp"))
        #expect(try artifacts.workPath(for: relative) != published, "each attempt its own")
        try Data("encoded".utf8).write(to: URL(fileURLWithPath: published))
        try artifacts.publish(relative, from: published)
        #expect(artifacts.allFiles() == [relative] && !FileManager.default.fileExists(atPath: published))

        // Killed mid-encode: its work file and the encoder's temporary of it stay behind.
        artifacts.remove(relative)
        let left = try artifacts.workPath(for: relative)
        let encoderTemporary = URL(fileURLWithPath: left).deletingLastPathComponent()
            .appendingPathComponent(".\(URL(fileURLWithPath: left).lastPathComponent).4242-x.tmp").path
        for path in [left, encoderTemporary] {
            try Data("half".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3_600)], ofItemAtPath: path)
        }
        #expect(!artifacts.exists(relative), "the artifact's name was never written")
        let report = try ArtifactSweeper(database: store.database, stateDirectory: store.state).sweep(now: Date(), originalsRetentionDays: nil)
        #expect(report.orphansRemoved == 2)
        #expect(artifacts.allFiles().isEmpty, "\(artifacts.allFiles())")
    }

    @Test("The sweep removes old staging files and orphans, keeps young ones and referenced ones, reports missing files", arguments: TestEngine.all)
    func sweep(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let artifacts = store.state.artifactStore
        let now = Date()
        let old = now.addingTimeInterval(-3_600)
        // A referenced original (present), a referenced audio file (missing), an orphan, a young orphan.
        var request = store.request("S1001", .week(1), at: TestStore.newYork(2026, 9, 6))
        request.originalPath = "originals/2026/09/kept.wav"
        guard case let .admitted(submission, _, _) = try store.database.admitSubmission(request, policy: ProgramPolicy()) else {
            Issue.record("not admitted"); return
        }
        try store.database.engine.write { db in
            try db.execute(sql: "UPDATE submission SET audioPath = 'submissions/2026/09/gone.opus' WHERE id = ?", arguments: [submission.id])
        }
        try artifacts.write(Data("a".utf8), to: "originals/2026/09/kept.wav")
        try artifacts.write(Data("b".utf8), to: "submissions/2026/09/orphan.opus")
        try artifacts.write(Data("c".utf8), to: "submissions/2026/09/young.opus")
        let staleStaging = store.state.staging.appendingPathComponent("cut-off.upload").path
        let youngStaging = store.state.staging.appendingPathComponent("arriving.upload").path
        _ = FileManager.default.createFile(atPath: staleStaging, contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: youngStaging, contents: Data("y".utf8))
        for path in [staleStaging, artifacts.path("originals/2026/09/kept.wav"), artifacts.path("submissions/2026/09/orphan.opus")] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        }

        let report = try ArtifactSweeper(database: store.database, stateDirectory: store.state).sweep(now: now, originalsRetentionDays: nil)
        #expect(report.stagingRemoved == 1)
        #expect(report.orphansRemoved == 1)
        #expect(report.missing == ["submissions/2026/09/gone.opus"] && report.missingCount == 1)
        #expect(Set(artifacts.allFiles()) == ["originals/2026/09/kept.wav", "submissions/2026/09/young.opus"])
        #expect(FileManager.default.fileExists(atPath: youngStaging))
        #expect(!FileManager.default.fileExists(atPath: staleStaging))
    }

    @Test("Month by month: a month with files and no rows, a row dated in another month than its file, and files outside the layout", arguments: TestEngine.all)
    func monthByMonth(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let artifacts = store.state.artifactStore
        let now = Date()
        // Received on 31 August 23:30 UTC, its waveform filed under September (kept: a row names it).
        var request = store.request("S1001", .assessment, at: Date(timeIntervalSince1970: 1_788_219_000))
        request.originalPath = "originals/2026/08/edge.wav"
        guard case let .admitted(submission, _, _) = try store.database.admitSubmission(request, policy: ProgramPolicy()) else {
            Issue.record("not admitted"); return
        }
        try store.database.engine.write { db in
            try db.execute(sql: "UPDATE submission SET waveformPath = 'submissions/2026/09/edge.peaks.json' WHERE id = ?", arguments: [submission.id])
        }
        let files = ["originals/2026/08/edge.wav", "submissions/2026/09/edge.peaks.json", "feedback/2019/01/ancient-orphan.opus",
                     "stray.txt", "submissions/misfiled.opus", "comments/2026/13/not-a-month.opus"]
        for file in files {
            try artifacts.write(Data("x".utf8), to: file)
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-3_600)], ofItemAtPath: artifacts.path(file))
        }
        #expect(ArtifactStore.monthKey(Date(timeIntervalSince1970: 1_788_219_000)) == "2026/08")
        let layout = try artifacts.layout()
        #expect(layout.months == ["2026/08", "2026/09", "2019/01"])
        #expect(Set(layout.strays) == ["stray.txt", "submissions/misfiled.opus", "comments/2026/13/not-a-month.opus"])

        let report = try ArtifactSweeper(database: store.database, stateDirectory: store.state).sweep(now: now, originalsRetentionDays: nil)
        #expect(report.orphansRemoved == 4 && report.missing.isEmpty)
        #expect(Set(artifacts.allFiles()) == ["originals/2026/08/edge.wav", "submissions/2026/09/edge.peaks.json"])
    }

    @Test("Links are never followed: a month directory, a family or a file that is a link to elsewhere loses the link, never what it points to", arguments: TestEngine.all)
    func links(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let artifacts = store.state.artifactStore
        let outside = store.root.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let secret = outside.appendingPathComponent("secret.opus").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: secret))
        try FileManager.default.createDirectory(atPath: artifacts.path("submissions/2026"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: artifacts.path("originals/2026/09"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: artifacts.path("submissions/2026/09"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: artifacts.path("feedback"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: artifacts.path("originals/2026/09/inner"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: artifacts.path("originals/2026/09/file.wav"), withDestinationPath: secret)
        // A hard link to the outside file and a FIFO: removed as entries, never opened, the outside file kept.
        try FileManager.default.linkItem(atPath: secret, toPath: artifacts.path("originals/2026/09/hard.wav"))
        #expect(mkfifo(artifacts.path("originals/2026/09/pipe\nname.opus"), 0o644) == 0)
        let layout = try artifacts.layout()
        #expect(!layout.months.contains("2026/09") || artifacts.files(family: .submissions, month: "2026/09").isEmpty)
        let report = try ArtifactSweeper(database: store.database, stateDirectory: store.state, grace: 0)
            .sweep(now: Date().addingTimeInterval(1), originalsRetentionDays: nil)
        #expect(FileManager.default.fileExists(atPath: secret), "the file a link pointed to is still there")
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "keep me")
        #expect(report.orphansRemoved == 6, "the four links, the hard link and the FIFO")
        #expect(!FileManager.default.fileExists(atPath: artifacts.path("originals/2026/09/pipe\nname.opus")))
        for link in ["submissions/2026/09", "feedback", "originals/2026/09/inner", "originals/2026/09/file.wav"] {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: artifacts.path(link))) == nil, "\(link) removed")
        }
    }

    @Test("A lost disk: every missing file is counted, a hundred are named", arguments: TestEngine.all)
    func manyMissing(engine: TestEngine) throws {
        let store = try TestStore(engine, students: (1...150).map { "S\(1000 + $0)" })
        defer { store.remove() }
        for index in 1...150 {
            var request = store.request("S\(1000 + index)", .assessment, at: TestStore.newYork(2026, 9, 6))
            request.originalPath = "originals/2026/09/lost-\(index).wav"
            _ = try store.database.admitSubmission(request, policy: ProgramPolicy())
        }
        let report = try ArtifactSweeper(database: store.database, stateDirectory: store.state).sweep(now: Date(), originalsRetentionDays: nil)
        #expect(report.missingCount == 150 && report.missing.count == SweepReport.missingExamples && report.missing == report.missing.sorted())
        #expect(try store.database.lastArtifactSweep()?.missing == 150)
    }

    @Test("A sweep asked to stop throws SweepInterrupted, records no count and leaves referenced files alone", arguments: TestEngine.all)
    func interruptedSweep(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let artifacts = store.state.artifactStore
        var request = store.request("S1001", .week(1), at: TestStore.newYork(2026, 9, 6))
        request.originalPath = "originals/2026/09/kept.wav"
        guard case .admitted = try store.database.admitSubmission(request, policy: ProgramPolicy()) else {
            Issue.record("not admitted"); return
        }
        try artifacts.write(Data("a".utf8), to: "originals/2026/09/kept.wav")
        var asked = 0
        #expect(throws: SweepInterrupted.self) {
            try ArtifactSweeper(database: store.database, stateDirectory: store.state)
                .sweep(now: Date(), originalsRetentionDays: nil, isStopping: { asked += 1; return true })
        }
        #expect(asked > 0)
        #expect(try store.database.lastArtifactSweep() == nil, "a partial sweep must not look like a full one")
        #expect(artifacts.allFiles() == ["originals/2026/09/kept.wav"])
    }

    @Test("Originals past retention are pruned only once their recording is encoded", arguments: TestEngine.all)
    func pruneOriginals(engine: TestEngine) throws {
        let store = try TestStore(engine)
        defer { store.remove() }
        let artifacts = store.state.artifactStore
        let received = TestStore.newYork(2026, 9, 6)
        var encoded = store.request("S1001", .week(1), at: received)
        encoded.originalPath = "originals/2026/09/a.wav"
        var pending = store.request("S1002", .week(1), at: received)
        pending.originalPath = "originals/2026/09/b.wav"
        let first = try #require(try store.database.admitSubmission(encoded, policy: ProgramPolicy()).submission)
        _ = try store.database.admitSubmission(pending, policy: ProgramPolicy())
        try store.database.engine.write { db in
            try db.execute(sql: "UPDATE submission SET audioPath = 'submissions/2026/09/a.opus' WHERE id = ?", arguments: [first.id])
        }
        for name in ["originals/2026/09/a.wav", "originals/2026/09/b.wav", "submissions/2026/09/a.opus"] {
            try artifacts.write(Data(name.utf8), to: name)
        }
        let report = try ArtifactSweeper(database: store.database, stateDirectory: store.state)
            .sweep(now: received.addingTimeInterval(31 * 86_400), originalsRetentionDays: 30)
        #expect(report.originalsPruned == 1)
        #expect(!artifacts.exists("originals/2026/09/a.wav"))
        #expect(artifacts.exists("originals/2026/09/b.wav"))
        #expect(try store.database.submission(id: first.id)?.originalPath == nil)
        #expect(report.missing.isEmpty)
    }
}
