import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Where artifacts are kept, chosen once from `artifacts.url` (DESIGN §13): on this node's
/// (or a shared) disk, `DiskArtifactStorage`, or in an S3 store, `S3ArtifactStorage`. Callers
/// hold an `ArtifactStore`, which adds the layout (families, months, variants) on top; nothing
/// outside the two implementations asks which one it has.
///
/// Paths are relative (`submissions/2026/11/<id>.opus`). Every write returns once the artifact
/// is durable (fsynced and renamed in; or answered by the store), so a row committed after it
/// never points to nothing. The blocking calls run where artifact work runs (the audio work
/// pool, the sweep's thread, a command), never on the concurrency pool; serving reads
/// (`size`, `read`) are async.
public protocol ArtifactStorage: Sendable {
    /// Says where, for logs and refusals (`/var/lib/tilawa/artifacts`, `s3://bucket/prefix at http://host:port`).
    var description: String { get }
    /// The local directory writers and readers that take a path work in: on disk the
    /// artifacts themselves, with an S3 store a work area of this node's.
    var workArea: URL { get }
    /// Whether a resumable upload's appends are kept here as well, so that any node can resume
    /// it (an S3 store every node reads); on disk a node's own `uploads/` is enough.
    var keepsUploadAppends: Bool { get }
    /// How old an artifact nobody names must be before the sweep removes it: an S3 object's
    /// time is the store's clock (up to SigV4's 15 minutes off) and a multipart upload's start.
    func orphanAge(grace: TimeInterval) -> TimeInterval

    // MARK: Writing

    /// Makes the complete local file `source` the artifact `relative`, durably; `source` is
    /// gone afterwards (renamed in, or uploaded and kept as the next reader's copy).
    func place(_ source: String, at relative: String) throws
    /// Writes `data` as `relative`, durably.
    func write(_ data: Data, to relative: String) throws
    /// Stores bytes `range` of the local file `path` as `relative` (one append of a resumable upload).
    func write(file path: String, range: Range<Int64>, to relative: String) throws
    /// Where a writer that renames into place itself (the encoder) makes `relative` for now,
    /// so that nothing it does touches the artifact until `publish(_:from:)`.
    func workPath(for relative: String) throws -> String
    /// Makes `work` (from `workPath(for:)`) the artifact `relative`, durably.
    func publish(_ relative: String, from work: String) throws
    /// Removes an artifact; a missing one is not an error, nor one that cannot be removed now
    /// (it stays an orphan for the sweep).
    func remove(_ relative: String)
    /// Removes every artifact whose path starts with `prefix`.
    func removeAll(under prefix: String) throws

    // MARK: Reading

    /// True when the artifact is there (an answer that does not come counts as no).
    func exists(_ relative: String) -> Bool
    /// A file with the artifact's bytes for a reader that takes a path.
    /// - Throws: `StoreError.io` when there is no such artifact.
    func localCopy(of relative: String) throws -> LocalArtifact
    /// `localCopy(of:)` for async callers (the export): nil when the artifact is not there.
    func readableCopy(of relative: String) async throws -> LocalArtifact?
    /// Writes `relative`'s bytes to the new file `path`; false when there is no such artifact.
    func download(_ relative: String, to path: String) throws -> Bool
    /// The artifact's size, nil when it is not there.
    func size(of relative: String) async throws -> Int?
    /// The artifact's bytes in `range` (all for nil), to be sent as they come.
    /// - Throws: `ArtifactMissing` when it is not there; anything else when the store does not answer.
    func read(_ relative: String, range: ClosedRange<Int>?) async throws -> ArtifactBytes

    // MARK: Listing

    /// The months (`YYYY/MM`) any family has artifacts in, and every file that is not in a
    /// family's month (only a disk can hold such strays: an S3 store's keys are all ours),
    /// resumable uploads' appends (`uploads/`) aside.
    func layout() throws -> ArtifactLayout
    /// Every artifact whose path starts with `prefix` (a family's month `submissions/2026/11/`,
    /// `photos/`), with its size and time; links are not followed, and on disk temporary files
    /// are listed too (the sweep removes them when old).
    func list(prefix: String) throws -> [ArtifactEntry]

    // MARK: Operations

    /// Whether this node can write and read here now (`/readyz`): within 3 s, not retried.
    func isReachable() async -> Bool
    /// Claims the storage for the installation `installation` names (a marker written the
    /// first time; asked only by a storage that keeps one); returns the id of another
    /// installation that holds it, nil when it is this one's.
    func claim(for installation: () throws -> String) throws -> String?
    /// Removes the work area's files older than `cutoff` (an encode or a fetched copy cut off
    /// by a crash) and returns how many; on disk the work area is the artifacts, which the
    /// sweep judges one by one instead.
    func removeWorkAreaLeftovers(before cutoff: Date) -> Int
    /// The storage for files kept beside the artifacts in the state directory `root` (coaches'
    /// photos, `photos/…`): on disk that directory, in an S3 store the same store.
    func companion(root: URL) -> any ArtifactStorage
    /// Why `tilawa backup` cannot copy these artifacts, nil when it can (they are in the state
    /// directory).
    var backupRefusal: String? { get }
}

extension ArtifactStorage {
    /// The marker `claim(for:)` writes, beside the artifact families.
    public static var installationMarker: String { ".tilawa-installation" }
}

/// What `ArtifactStorage.read` answers: the bytes' count and a function that hands them over
/// in order (from a file opened then, or from the store's answer already under way).
public struct ArtifactBytes: Sendable {
    /// How many bytes `send` hands over, when known.
    public let count: Int?
    /// Calls `each` with every buffer, in order.
    public let send: @Sendable (_ each: (ByteBuffer) async throws -> Void) async throws -> Void

    public init(count: Int?, send: @escaping @Sendable (_ each: (ByteBuffer) async throws -> Void) async throws -> Void) {
        self.count = count
        self.send = send
    }
}

/// The artifact asked for is not in the storage.
public struct ArtifactMissing: Error, Sendable, CustomStringConvertible {
    public let path: String
    public init(path: String) { self.path = path }
    public var description: String { "artifact \(path) is missing" }
}

/// The months artifacts are filed in, and the files outside them.
public struct ArtifactLayout: Sendable, Equatable {
    public var months: Set<String>
    public var strays: [String]

    public init(months: Set<String>, strays: [String]) {
        self.months = months
        self.strays = strays
    }
}

/// One stored artifact as a listing names it.
public struct ArtifactEntry: Sendable, Equatable {
    /// The relative path (`submissions/2026/11/<id>.opus`).
    public let path: String
    public let size: Int64
    /// When it was written; nil when the store did not say.
    public let modified: Date?

    public init(path: String, size: Int64, modified: Date?) {
        self.path = path
        self.size = size
        self.modified = modified
    }
}

/// A local file with an artifact's bytes, for code that reads a path (the decoder, the remuxer):
/// the artifact's own file on disk, or a copy fetched from the store that `release()` removes.
public struct LocalArtifact: Sendable {
    public let path: String
    let isCopy: Bool

    public init(path: String, isCopy: Bool) {
        self.path = path
        self.isCopy = isCopy
    }

    /// Removes the fetched copy (nothing for the artifact's own file).
    public func release() {
        if isCopy { unlink(path) }
    }
}
