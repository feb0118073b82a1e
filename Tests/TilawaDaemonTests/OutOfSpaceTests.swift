import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFileSystem
import Testing
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A disk that runs out of room is the disk's fault, not the upload's or the recording's:
/// uploads are answered 507 `storage_full` with `Retry-After` (never 500), and an encode that
/// fails on a node short of room waits for room instead of using an attempt.
@Suite("Out of space: 507 for uploads, and encodes that wait for room")
struct OutOfSpaceTests {
    private static func failedWrite(_ errno: Errno) -> FileSystemError {
        FileSystemError(code: .unknown, message: "Could not write to file.",
                        cause: FileSystemError.SystemCallError(systemCall: "write", errno: errno),
                        location: .init(function: "write", file: "test", line: 1))
    }

    @Test("ENOSPC and EDQUOT from swift-nio's file system or the store's writes are the disk's; EIO is not")
    func classified() {
        #expect(OutOfSpace.caused(Self.failedWrite(.noSpace)))
        #expect(OutOfSpace.caused(Self.failedWrite(.diskQuotaExceeded)))
        #expect(OutOfSpace.caused(StoreError.storageFull("ENOSPC")))
        #expect(!OutOfSpace.caused(Self.failedWrite(.ioError)))
        #expect(!OutOfSpace.caused(StoreError.io("EIO")))
    }

    @Test("a node short of room (storage.min_free_bytes above what is free): a failing encode is queued again, no attempt used")
    func encodeWaitsForRoom() async throws {
        let daemon = try await TestDaemon { $0.storage.minFreeBytes = Int.max }
        defer { daemon.remove() }
        let runtime = daemon.runtime
        #expect(runtime.isDiskLow)
        let staged = runtime.stateDirectory.newStagingPath(extension: "opus")
        try FileManager.default.copyItem(atPath: fixturesDirectory.appendingPathComponent("speech.opus").path, toPath: staged)
        guard case let .accepted(submission, _, job) = try runtime.intake.submit(
            stagedPath: staged, studentId: "S1001", slot: .week(12), origin: .cli, fileExtension: "opus") else {
            Issue.record("the recording was not accepted")
            return
        }
        // Its original gone, the encode fails, as a write would on a full disk.
        let original = try #require(try await runtime.database.submission(id: submission.id)?.originalPath)
        try FileManager.default.removeItem(atPath: runtime.stateDirectory.artifactStore.path(original))
        let jobId = try #require(job.id)
        for _ in 1...4 {
            let claimed = try #require(try runtime.database.claimJob(id: jobId, worker: "t", now: daemon.clock.now))
            runtime.encodeRunner.run(claimed)
            daemon.clock.advance(by: 3_600)
        }
        let record = try #require(try await runtime.database.engine.read { db in try JobRecord.fetchOne(db, key: jobId) })
        #expect(record.state == .queued && record.transientFailures == 4 && record.countedAttempts == 0, "\(record)")
        #expect(try await runtime.database.submission(id: submission.id)?.state == .processing)
    }

    @Test("an upload larger than the room left: ENOSPC mid-body is 507 storage_full with Retry-After, nothing left behind",
          .enabled(if: SmallFilesystem.available, "needs root to mount a tmpfs"))
    func uploadRunsOutOfRoom() async throws {
        try await SmallFilesystem.withMounted(megabytes: 16) { small in
            let daemon = try await TestDaemon {
                $0.stateDirectory = small.path + "/var"
                $0.storage.minFreeBytes = 0
            }
            defer { daemon.remove() }
            try await daemon.application().live { client in
                // More than 1 MiB stays free, so only the write's own ENOSPC can say the disk is full.
                _ = try small.fill(leaving: 3 << 20)
                let headers = try await daemon.headers(.student, "S1008", [.contentType: "audio/wav"])
                let body = ByteBuffer(repeating: 0x52, count: 8 << 20)
                let refused = try await client.judged(daemon, uri: "/v1/students/S1008/weeks/12/submissions", headers: headers, body: body)
                #expect(refused.status.code == 507, "\(String(buffer: refused.body))")
                #expect(refused.json?["code"] as? String == "storage_full")
                #expect(refused.headers[.retryAfter] == "300")
                #expect(daemon.stagingFiles().isEmpty)
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            }
            let rows = try await daemon.runtime.database.engine.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") }
            #expect(rows == 0)
        }
    }
}
