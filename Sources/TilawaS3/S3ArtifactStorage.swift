import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import TilawaStore

#if canImport(Glibc)
import Glibc
#endif

/// Artifacts in an S3-compatible store (`artifacts.url: s3://bucket/prefix`): the object key
/// of `submissions/2026/11/x.opus` is `prefix/submissions/2026/11/x.opus`. The node's
/// `artifacts/` directory is then only a work area (an encode being made, a copy fetched for
/// the decoder), whose files no row names.
///
/// The blocking calls wait on their thread until the store answers (they run where the
/// artifact work runs: the audio work pool, the sweep's thread, a command); serving reads
/// through the async `size(of:)` and `read(_:range:)` instead, without blocking.
public struct S3ArtifactStorage: ArtifactStorage {
    public let client: S3Client
    public let location: S3Location
    /// The same store through connections of their own for reads proxied to phones (a slow
    /// reader must not queue uploads, encode jobs and `/readyz` behind it).
    let servingClient: S3Client
    public let workArea: URL

    public init(client: S3Client, location: S3Location, servingClient: S3Client? = nil, workArea: URL) {
        self.client = client
        self.location = location
        self.servingClient = servingClient ?? client
        self.workArea = workArea
    }

    public var description: String { "\(location) at \(client.endpoint.absoluteString)" }
    public var keepsUploadAppends: Bool { true }

    /// An hour at least: an object's LastModified is the store's clock (which a node's may be
    /// up to the 15 minutes SigV4 allows off) and, for a multipart upload, when it began.
    public func orphanAge(grace: TimeInterval) -> TimeInterval { max(grace, ArtifactSweeper.remoteGrace) }

    public var backupRefusal: String? {
        """
        artifacts are kept in \(description), not in the state directory: keep that bucket \
        versioned (or replicated) with the store's own tools, and back the database up with its own \
        (pg_dump or point-in-time recovery for PostgreSQL)
        """
    }

    /// The same store: photos are kept in it beside the artifacts, where every node finds them.
    public func companion(root: URL) -> any ArtifactStorage { self }

    /// The work area's path of `relative`.
    func local(_ relative: String) -> String { workArea.appendingPathComponent(relative).path }

    // MARK: Writing

    /// Uploads it and keeps the local file as the work area's copy for the one reader that
    /// comes next (the encode job: it need not fetch back what was just sent).
    public func place(_ source: String, at relative: String) throws {
        try upload(file: source, to: relative)
        // Durable before it is renamed in: a copy there is whole even after a power cut.
        let copy = placedCopyPath(relative)
        if (try? LocalFiles.fsync(path: source)) == nil || (try? LocalFiles.makeParent(of: copy)) == nil || rename(source, copy) != 0 { unlink(source) }
    }

    public func write(_ data: Data, to relative: String) throws {
        _ = try Self.blocking {
            try await Self.retrying { try await client.putObject(bucket: location.bucket, key: try key(relative), bytes: Array(data)) }
        }
    }

    /// Sent from memory up to 16 MiB, from a copy of the range beyond.
    public func write(file path: String, range: Range<Int64>, to relative: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw StoreError.io("cannot open \(path)") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        let length = Int(range.count)
        if length <= 16 << 20 {
            let bytes = try handle.read(upToCount: length) ?? Data()
            guard bytes.count == length else { throw StoreError.io("\(path) ends before byte \(range.upperBound)") }
            try write(bytes, to: relative)
            return
        }
        let copy = path + ".range"
        guard FileManager.default.createFile(atPath: copy, contents: nil), let out = FileHandle(forWritingAtPath: copy) else {
            throw StoreError.io("cannot create \(copy)")
        }
        defer { unlink(copy) }
        var left = length
        do {
            defer { try? out.close() }
            while left > 0 {
                guard let chunk = try handle.read(upToCount: min(left, 1 << 20)), !chunk.isEmpty else {
                    throw StoreError.io("\(path) ends before byte \(range.upperBound)")
                }
                try out.write(contentsOf: chunk)
                left -= chunk.count
            }
        }
        try upload(file: copy, to: relative)
    }

    /// `relative`'s own path in this node's work area.
    public func workPath(for relative: String) throws -> String {
        let path = local(relative)
        try LocalFiles.makeParent(of: path)
        return path
    }

    /// Uploads `work` and removes it.
    public func publish(_ relative: String, from work: String) throws {
        try upload(file: work, to: relative)
        unlink(work)
    }

    /// An object the store would not remove stays an orphan for the listing sweep.
    public func remove(_ relative: String) {
        guard ArtifactStore.isContained(relative) else { return }
        try? Self.blocking { try await Self.retrying { try await client.deleteObject(bucket: location.bucket, key: try key(relative)) } }
        unlink(local(relative))
        unlink(placedCopyPath(relative))
    }

    public func removeAll(under prefix: String) throws {
        for entry in try list(prefix: prefix) {
            try Self.blocking { try await Self.retrying { try await client.deleteObject(bucket: location.bucket, key: try key(entry.path)) } }
        }
    }

    func upload(file path: String, to relative: String) throws {
        try Self.blocking { try await Self.retrying { try await client.putFile(bucket: location.bucket, key: try key(relative), path: path) } }
    }

    // MARK: Reading

    public func exists(_ relative: String) -> Bool {
        (try? Self.blocking { try await Self.retrying { try await client.headObject(bucket: location.bucket, key: try key(relative)) } != nil }) ?? false
    }

    /// Where `place` leaves the copy of what it uploaded: `.placed/<relative>` in the work area.
    /// Only `place` writes there, renaming a whole file in, so a file there is always complete
    /// (and the object is immutable: its key is its id). The first `localCopy` takes it; the
    /// sweep removes one no reader took.
    func placedCopyPath(_ relative: String) -> String {
        workArea.appendingPathComponent(".placed").appendingPathComponent(relative).path
    }

    /// The copy `place` left (taken: `release()` removes it) or one fetched into the work area.
    public func localCopy(of relative: String) throws -> LocalArtifact {
        guard ArtifactStore.isContained(relative) else { throw StoreError.io("artifact \(relative) is not a path inside the store") }
        let placed = placedCopyPath(relative)
        var info = stat()
        if lstat(placed, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            let taken = try temporaryPath(for: relative)
            // Renamed away first: two readers never both take it (the second fetches).
            // Its time made now: the sweep leaves a taken copy alone however long it waited.
            if rename(placed, taken) == 0 {
                utime(taken, nil)
                return LocalArtifact(path: taken, isCopy: true)
            }
        }
        let copy = try temporaryPath(for: relative)
        do {
            guard try download(relative, to: copy) else { throw StoreError.io("artifact \(relative) is missing from \(description)") }
        } catch {
            unlink(copy)
            throw error
        }
        return LocalArtifact(path: copy, isCopy: true)
    }

    public func readableCopy(of relative: String) async throws -> LocalArtifact? {
        guard ArtifactStore.isContained(relative) else { return nil }
        let copy = try temporaryPath(for: relative)
        do {
            guard try await fetch(relative, to: copy) else {
                unlink(copy)
                return nil
            }
        } catch {
            unlink(copy)
            throw error
        }
        return LocalArtifact(path: copy, isCopy: true)
    }

    public func download(_ relative: String, to path: String) throws -> Bool {
        try Self.blocking { try await fetch(relative, to: path) }
    }

    func fetch(_ relative: String, to path: String) async throws -> Bool {
        let object: S3Client.Object
        do {
            object = try await Self.retrying { try await client.getObject(bucket: location.bucket, key: try key(relative)) }
        } catch let error as S3Error where error.isNotFound {
            return false
        }
        guard let handle = Self.create(path) else { throw S3Error(code: "local_io", message: "cannot create \(path)") }
        defer { try? handle.close() }
        for try await buffer in object.body {
            try buffer.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
        }
        return true
    }

    public func size(of relative: String) async throws -> Int? {
        try await Self.retrying { try await client.headObject(bucket: location.bucket, key: try key(relative)) }.map { Int($0.size) }
    }

    /// Proxied (the phone and the desk speak to Tilawa only, and the store needs no public
    /// address), streamed as the store sends it, after checking it answered the range asked (a
    /// 200 for a range would splice wrong bytes).
    public func read(_ relative: String, range: ClosedRange<Int>?) async throws -> ArtifactBytes {
        let object: S3Client.Object
        do {
            object = try await Self.retrying {
                try await servingClient.getObject(bucket: location.bucket, key: try key(relative),
                                                  range: range.map { "bytes=\($0.lowerBound)-\($0.upperBound)" })
            }
        } catch let error as S3Error where error.isNotFound {
            throw ArtifactMissing(path: relative)
        }
        guard object.status == (range == nil ? 200 : 206) else {
            throw S3Error(code: "bad_answer", message: "HTTP \(object.status) for \(range == nil ? "a whole object" : "a range")")
        }
        let body = object.body
        return ArtifactBytes(count: range?.count ?? object.contentLength.map(Int.init)) { each in
            for try await buffer in body { try await each(buffer) }
        }
    }

    // MARK: Local files

    func temporaryPath(for relative: String) throws -> String {
        try LocalFiles.temporaryPath(for: local(relative))
    }

    private static func create(_ path: String) -> FileHandle? {
        FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]) ? FileHandle(forWritingAtPath: path) : nil
    }
}
