import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

@Suite("Disk full")
struct DiskFullTests {
    @Test("A full disk answers 507 with no partial file or row, the daemon stays up, and uploads work again once space is freed",
          .enabled(if: SmallFilesystem.available, "needs root to mount a tmpfs"))
    func diskFull() async throws {
        try await SmallFilesystem.withMounted(megabytes: 12) { small in
            // The threshold is off: this is about the real ENOSPC while an upload streams in.
            let daemon = try await TestDaemon {
                $0.stateDirectory = small.path + "/var"
                $0.storage.minFreeBytes = 0
            }
            defer { daemon.remove() }
            try await daemon.application().live { client in
                let filler = try small.fill(leaving: 300 * 1024)
                let headers = try await daemon.headers(.student, "S1008", [.contentType: "audio/wav"])
                let body = try TestDaemon.fixture("speech_mono_s16_48k.wav")
                let refused = try await client.judged(daemon, uri: "/v1/students/S1008/weeks/12/submissions", headers: headers, body: body)
                #expect(refused.status.code == 507, "\(String(buffer: refused.body))")
                #expect(refused.json?["code"] as? String == "storage_full")
                #expect(daemon.stagingFiles().isEmpty)
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)

                try FileManager.default.removeItem(atPath: filler)
                let accepted = try await client.judged(daemon, uri: "/v1/students/S1008/weeks/12/submissions", headers: headers, body: body)
                #expect(accepted.status == .created, "\(String(buffer: accepted.body))")
            }
            let rows = try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") }
            #expect(rows == 1)
            let artifacts = daemon.runtime.stateDirectory.artifactStore.allFiles()
            #expect(artifacts.allSatisfy { !$0.hasSuffix(".tmp") })
        }
    }
}
