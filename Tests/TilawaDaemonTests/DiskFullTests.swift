import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A state directory on a small size-capped filesystem (tmpfs), mounted by the test when it
/// runs as root; skipped otherwise.
private struct SmallFilesystem {
    let path: String

    static let available: Bool = {
        guard getuid() == 0, let probe = try? ScratchDirectory() else { return false }
        defer { probe.remove() }
        guard (try? runProcessBlocking("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe.path]))?.status == 0 else { return false }
        _ = try? runProcessBlocking("umount", [probe.path])
        return true
    }()

    init(megabytes: Int, at path: String) async throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try await runProcess("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        guard mounted.status == 0 else { throw Failure.mount(mounted.stderr) }
    }

    /// Fills the filesystem until about `leaving` bytes are free.
    func fill(leaving: Int64) throws -> String {
        let filler = path + "/filler"
        let free = DiskSpace.availableBytes(at: path) ?? 0
        try Data(repeating: 0, count: Int(max(0, free - leaving))).write(to: URL(fileURLWithPath: filler))
        return filler
    }

    func unmount() { _ = try? runProcessBlocking("umount", ["-l", path]) }

    enum Failure: Error { case mount(String) }
}

@Suite("Disk full")
struct DiskFullTests {
    @Test("A full disk answers 507 with no partial file or row, the daemon stays up, and uploads work again once space is freed",
          .enabled(if: SmallFilesystem.available, "needs root to mount a tmpfs"))
    func diskFull() async throws {
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-small-\(UUID().uuidString)").path
        let small = try await SmallFilesystem(megabytes: 12, at: mountPoint)
        defer {
            small.unmount()
            try? FileManager.default.removeItem(atPath: mountPoint)
        }
        // The threshold is off: this is about the real ENOSPC while an upload streams in.
        let daemon = try await TestDaemon {
            $0.stateDirectory = mountPoint + "/var"
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
