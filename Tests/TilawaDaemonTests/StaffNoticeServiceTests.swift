import Foundation
import GRDB
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

@Suite("The programme clock's notices for staff")
struct StaffNoticeServiceTests {
    @Test("one tick: storage_low to operations below storage.low_free_bytes, the digest to the coach with work, none to an idle coach")
    func oneTick() async throws {
        // Sunday 10:00 New York, past the 07:00 digest; every disk is below Int.max bytes free.
        let daemon = try await TestDaemon { $0.storage.lowFreeBytes = Int.max }
        defer { daemon.remove() }
        let staged = daemon.runtime.stateDirectory.newStagingPath(extension: "opus")
        try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent("speech.opus").path, toPath: staged)
        _ = try daemon.runtime.intake.submit(stagedPath: staged, studentId: "S1001", slot: .week(12), origin: .cli, fileExtension: "opus")
        #expect(try daemon.runtime.encodeRunner.runPending() == 1)

        let services = RunningServices([ProgrammeClockService(runtime: daemon.runtime, notify: nil, logger: daemon.logger)])
        #expect(await daemon.eventually {
            try daemon.runtime.database.engine.read { db in
                try EventRecord.fetchCount(db, where: "type IN ('coach_digest', 'storage_low')") == 2
            }
        })
        try await services.stop()

        let events = try await daemon.runtime.database.engine.read { db in
            try EventRecord.fetchAll(db, where: "studentId IS NULL", orderBy: "seq")
        }
        #expect(events.map(\.type).sorted() == ["coach_digest", "storage_low"])
        let digest = try #require(events.first { $0.type == "coach_digest" })
        #expect(digest.recipient == "coach" && digest.recipientId == "C01")
        let payload = try JSONDecoder.api.decode(EventPayload.self, from: digest.payload)
        #expect(payload.extra?.queue?.awaiting == 1 && payload.extra?.queue?.overdue == 0)
        let storage = try #require(events.first { $0.type == "storage_low" })
        let low = try JSONDecoder.api.decode(EventPayload.self, from: storage.payload)
        #expect(storage.recipient == "ops" && low.extra?.storage?.freeBytes ?? 0 > 0)
        #expect(low.message.hasPrefix("The state directory's disk has ") && low.message.hasSuffix("uploads are refused below 0 B."))
    }
}
