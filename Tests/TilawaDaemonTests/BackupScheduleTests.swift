import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// Scheduled backups (`backup.dir`, `backup.every_hours`, `backup.keep`) and what `status`
/// says of them (DESIGN §12).
@Suite("Scheduled backups: due by the last one, linked to the newest, pruned to keep; status warns when late", .enabled(if: TestEngine.current == .sqlite, "backups are SQLite's: on PostgreSQL they are refused"))
struct BackupScheduleTests {
    @Test("Made when due, not before; unchanged files linked; the oldest beyond keep and unfinished runs removed; nothing else touched")
    func schedule() async throws {
        let daemon = try await TestDaemon { configuration in
            configuration.backup.dir = nil
        }
        defer { daemon.remove() }
        let directory = daemon.scratch.path("backups")
        try await daemon.application().live { client in
            _ = try await daemon.answeredRecording(client)
        }
        let schedule = BackupSchedule(database: daemon.runtime.database, stateDirectory: daemon.runtime.stateDirectory,
                                      directory: directory, everyHours: 1, keep: 2)
        let start = daemon.clock.now
        try FileManager.default.createDirectory(atPath: directory + "/20200101T000000Z", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/mine", withIntermediateDirectories: true)

        // Each run on a thread of its own, as the daemon's service runs it (not on the concurrency pool).
        func run(at offset: TimeInterval) async throws -> BackupSchedule.Outcome? {
            try await onOwnThread { try schedule.runIfDue(now: start.addingTimeInterval(offset)) }
        }
        let first = try #require(try await run(at: 0))
        #expect(first.report.files > 0 && first.report.linked == 0)
        #expect(try await run(at: 600) == nil, "not due yet")
        let second = try #require(try await run(at: 3_600))
        #expect(second.report.linked == first.report.files && second.report.bytes == 0, "nothing changed: every file linked")
        let third = try #require(try await run(at: 7_200))
        #expect(third.removed == [URL(fileURLWithPath: first.path).lastPathComponent])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(left == [URL(fileURLWithPath: second.path).lastPathComponent, URL(fileURLWithPath: third.path).lastPathComponent, "mine"],
                "the unfinished run's directory is gone, a folder of someone else's stays")
        let paths = (second.path, third.path)
        _ = try await onOwnThread { try BackupVerifier.verify(paths.0) }
        _ = try await onOwnThread { try BackupVerifier.verify(paths.1) }

        // status: the last backup, verified; late past twice the interval.
        var configuration = daemon.runtime.configuration
        configuration.backup.dir = directory
        configuration.backup.everyHours = 1
        let reporter = StatusReporter(configuration: configuration)
        let fresh = await reporter.report(now: start.addingTimeInterval(7_300), database: daemon.runtime.database, startedAt: start)
        #expect(fresh.check("backup")?.state == .ok && fresh.backup.verified == true && fresh.backup.lastPath == third.path)
        let late = await reporter.report(now: start.addingTimeInterval(7_200 + 7_300), database: daemon.runtime.database, startedAt: start)
        #expect(late.check("backup")?.state == .warning, "\(late.check("backup")?.message ?? "")")
        #expect(late.state == .warning)
    }
}
