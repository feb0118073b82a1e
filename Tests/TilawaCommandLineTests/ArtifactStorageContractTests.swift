import Foundation
import NIOCore
import Testing
import TilawaS3
import TilawaStore
import TilawaTestSupport

/// The one contract of `ArtifactStorage`, asked of both implementations as the database tests
/// ask both engines: what a caller sees must not depend on `artifacts.url`. The S3 store is a
/// real one that checks signatures (`S3TestServer`); the blocking calls run on threads of
/// their own, as the daemon runs them on its work pool.
@Suite("Artifact storage: one contract, on disk and in an S3 store", .heavy)
struct ArtifactStorageContractTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case disk, s3
        var testDescription: String { rawValue }
    }

    /// A store of `kind` whose local directory is `scratch`'s `artifacts/`.
    static func store(_ kind: Kind, in scratch: ScratchDirectory) async throws -> ArtifactStore {
        let state = StateDirectory(path: scratch.path("state"))
        switch kind {
        case .disk:
            return state.artifactStore
        case .s3:
            let server = try await S3TestServer.shared()
            let client = S3Client(endpoint: server.endpoint, credentials: S3Credentials(accessKey: server.accessKey, secretKey: server.secretKey),
                                  region: server.region)
            let bucket = S3TestServer.uniqueBucket("contract")
            try await client.createBucket(bucket)
            return StateDirectory(path: scratch.path("state")) { workArea in
                S3ArtifactStorage(client: client, location: S3Location(bucket: bucket, prefix: "node"), workArea: workArea)
            }.artifactStore
        }
    }

    /// All of an artifact's bytes as `read` hands them over.
    static func bytes(_ store: ArtifactStore, _ relative: String, range: ClosedRange<Int>? = nil) async throws -> [UInt8] {
        let read = try await store.storage.read(relative, range: range)
        var bytes: [UInt8] = []
        try await read.send { buffer in bytes += buffer.readableBytesView }
        #expect(read.count == bytes.count, "the count said is the count handed over")
        return bytes
    }

    @Test("Written bytes are there whole and by range; a missing one is nil, false and ArtifactMissing; removed is gone", arguments: Kind.allCases)
    func writeReadRemove(kind: Kind) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let store = try await Self.store(kind, in: scratch)
        let relative = "submissions/2026/11/sub_a.opus"
        let data = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await onOwnThread { try store.write(data, to: relative) }

        #expect(try await onOwnThread { store.exists(relative) })
        #expect(try await store.storage.size(of: relative) == data.count)
        #expect(try await Self.bytes(store, relative) == Array(data))
        #expect(try await Self.bytes(store, relative, range: 5...9) == Array(data[5...9]))
        #expect(try await Self.bytes(store, relative, range: 131_070...131_075) == Array(data[131_070...131_075]), "across a 128 KiB chunk")

        let missing = "submissions/2026/11/sub_none.opus"
        #expect(try await store.storage.size(of: missing) == nil)
        #expect(try await onOwnThread { !store.exists(missing) })
        await #expect(throws: ArtifactMissing.self) { _ = try await store.storage.read(missing, range: nil) }
        #expect(try await store.readableCopy(of: missing) == nil)
        #expect(throws: StoreError.self) { _ = try store.localCopy(of: "../outside.opus") }
        let refused = try await onOwnThread { (try? store.write(Data("x".utf8), to: "submissions/../../outside.opus")) == nil }
        #expect(refused, "a path out of the store is refused")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("outside.opus")))

        try await onOwnThread {
            store.remove(relative)
            store.remove(relative)  // a second time: nothing to do, no error
        }
        #expect(try await onOwnThread { !store.exists(relative) })
        #expect(try await store.storage.size(of: relative) == nil)
    }

    @Test("place, publish from a work path and a range of a file: each makes the artifact, the local source is gone, copies read back",
          arguments: Kind.allCases)
    func placePublishCopy(kind: Kind) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let store = try await Self.store(kind, in: scratch)
        try FileManager.default.createDirectory(atPath: scratch.path("staging"), withIntermediateDirectories: true)
        let staged = scratch.path("staging/upload.wav")
        try Data("original bytes".utf8).write(to: URL(fileURLWithPath: staged))
        try await onOwnThread { try store.place(staged, at: "originals/2026/11/sub_b.wav") }
        #expect(!FileManager.default.fileExists(atPath: staged))

        let copy = try await onOwnThread { try store.localCopy(of: "originals/2026/11/sub_b.wav") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy.path)) == Data("original bytes".utf8))
        copy.release()
        #expect(try await onOwnThread { store.exists("originals/2026/11/sub_b.wav") }, "releasing a copy leaves the artifact")

        let work = try await onOwnThread { try store.workPath(for: "submissions/2026/11/sub_b.opus") }
        try Data("encoded".utf8).write(to: URL(fileURLWithPath: work))
        try await onOwnThread { try store.publish("submissions/2026/11/sub_b.opus", from: work) }
        #expect(try await Self.bytes(store, "submissions/2026/11/sub_b.opus") == Array("encoded".utf8))
        #expect(!FileManager.default.fileExists(atPath: work), "the work file is gone once published")

        let source = scratch.path("staging/appends")
        try Data("0123456789".utf8).write(to: URL(fileURLWithPath: source))
        try await onOwnThread { try store.storage.write(file: source, range: 3..<7, to: "uploads/upl_1/3-seg") }
        let fetched = scratch.path("fetched")
        #expect(try await onOwnThread { try store.storage.download("uploads/upl_1/3-seg", to: fetched) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: fetched)) == Data("3456".utf8))
        #expect(try await onOwnThread { try !store.storage.download("uploads/upl_1/none", to: scratch.path("none")) })

        let readable = try #require(try await store.readableCopy(of: "submissions/2026/11/sub_b.opus"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: readable.path)) == Data("encoded".utf8))
        readable.release()
    }

    @Test("Listing: a month's artifacts with their sizes and times, the months in the layout, removeAll under a prefix", arguments: Kind.allCases)
    func listing(kind: Kind) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let store = try await Self.store(kind, in: scratch)
        let before = Date().addingTimeInterval(-900)
        try await onOwnThread {
            try store.write(Data("aa".utf8), to: "submissions/2026/11/a.opus")
            try store.write(Data("bbb".utf8), to: "submissions/2026/11/b.opus")
            try store.write(Data("c".utf8), to: "feedback/2025/02/c.opus")
            try store.write(Data("u".utf8), to: "uploads/upl_2/0-seg")
            try store.write(Data("v".utf8), to: "uploads/upl_2/1-seg")
        }
        let month = try await onOwnThread { try store.entries(family: .submissions, month: "2026/11") }
        #expect(Dictionary(uniqueKeysWithValues: month.map { ($0.path, $0.size) }) == ["submissions/2026/11/a.opus": 2, "submissions/2026/11/b.opus": 3])
        #expect(month.allSatisfy { ($0.modified ?? .distantPast) > before }, "\(month)")
        #expect(try await onOwnThread { try store.entries(family: .comments, month: "2026/11") }.isEmpty)
        let layout = try await onOwnThread { try store.layout() }
        #expect(layout.months.isSuperset(of: ["2026/11", "2025/02"]) && !layout.months.contains("2026/10"), "\(layout.months)")

        try await onOwnThread { try store.storage.removeAll(under: "uploads/upl_2/") }
        #expect(try await onOwnThread { try store.storage.list(prefix: "uploads/upl_2/") }.isEmpty)
        #expect(try await onOwnThread { store.exists("submissions/2026/11/a.opus") }, "only what is under the prefix goes")
        #expect(await store.storage.isReachable())
    }
}
