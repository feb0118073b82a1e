import Foundation

/// Where artifacts live for good when they do not live in the state directory: an
/// S3-compatible store (`artifacts.url: s3://bucket/prefix`, DESIGN §13), shared by every node.
///
/// The calls block until the store has answered: they are made where the rest of the artifact
/// work is, on threads of their own (the audio work pool, the sweep's thread, a command), never
/// on a thread of the concurrency pool. Paths are the artifact's relative path; the remote
/// turns them into its keys.
public protocol ArtifactRemote: Sendable {
    /// Says where, for logs and refusals (`s3://bucket/prefix at http://host:port`).
    var description: String { get }
    /// Stores the file at `path` (local, complete) as `relative`; when this returns, the store
    /// has it durably (S3 answers a PUT only then).
    func upload(file path: String, to relative: String) throws
    /// Stores `data` as `relative`.
    func upload(data: Data, to relative: String) throws
    /// Writes `relative`'s bytes to the new file `path`; false when the store has no such object.
    func download(_ relative: String, to path: String) throws -> Bool
    /// `download` for async callers (the export), suspending instead of blocking.
    func fetch(_ relative: String, to path: String) async throws -> Bool
    /// Removes `relative`; a missing object is not an error.
    func delete(_ relative: String) throws
    /// Whether the store has `relative`.
    func exists(_ relative: String) throws -> Bool
    /// Every object whose relative path starts with `prefix`, with its size and when it was written.
    func list(prefix: String) throws -> [ArtifactEntry]
    /// The names of the "folders" directly under `prefix` (ending in `/`): `["2026", "2027"]`
    /// under `submissions/`.
    func folders(under prefix: String) throws -> [String]
    /// Claims the store's prefix for `installation` (a marker object written the first time);
    /// returns the id of another installation that holds it, nil when it is this one's.
    func claim(for installation: String) throws -> String?
}

extension ArtifactRemote {
    /// The marker object's path, beside the artifact families.
    public static var installationMarker: String { ".tilawa-installation" }

    /// Stores bytes `range` of the file at `path` as `relative` (one append of a resumable
    /// upload): sent from memory up to 16 MiB, from a copy of the range beyond.
    public func upload(file path: String, range: Range<Int64>, to relative: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw StoreError.io("cannot open \(path)") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        let length = Int(range.count)
        if length <= 16 << 20 {
            let bytes = try handle.read(upToCount: length) ?? Data()
            guard bytes.count == length else { throw StoreError.io("\(path) ends before byte \(range.upperBound)") }
            try upload(data: bytes, to: relative)
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

    /// Removes every object under `prefix` (an upload's appends once it no longer needs them).
    public func deleteAll(under prefix: String) throws {
        for entry in try list(prefix: prefix) { try delete(entry.path) }
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
/// the artifact's own file on disk, or a copy fetched from the remote that `release()` removes.
public struct LocalArtifact: Sendable {
    public let path: String
    let isCopy: Bool

    /// Removes the fetched copy (nothing for the artifact's own file).
    public func release() {
        if isCopy { unlink(path) }
    }
}
