import Foundation
import NIOCore
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#endif

/// Artifacts as files under one directory (`<state_dir>/artifacts`, or a `file:///shared/path`
/// several nodes mount), placed crash-safely: every file is written to a temporary name,
/// fsynced, renamed and its directory fsynced before the caller commits the row that points to
/// it; so after a crash there may be a file without a row (swept at start), never a row
/// without its file.
public struct DiskArtifactStorage: ArtifactStorage {
    /// The directory the artifacts are under.
    public let root: URL
    /// The state directory, whose `backup.lock` a removal takes (nothing is removed while a
    /// backup runs: the file stays an orphan for the sweep).
    public let stateRoot: URL

    public init(root: URL, stateRoot: URL) {
        self.root = root
        self.stateRoot = stateRoot
    }

    public var description: String { root.path }
    public var workArea: URL { root }
    /// In the state directory a node's own `uploads/` holds its uploads' bytes; a directory
    /// elsewhere is one the nodes share, and keeps the appends (`uploads/<id>/…`) so that any
    /// node resumes an upload.
    public var keepsUploadAppends: Bool { !isInStateDirectory }

    /// Whether the root is the state directory's own (`artifacts/`, or the directory itself for photos).
    var isInStateDirectory: Bool {
        [stateRoot, stateRoot.appendingPathComponent("artifacts")].map(\.standardizedFileURL.path).contains(root.standardizedFileURL.path)
    }
    public func orphanAge(grace: TimeInterval) -> TimeInterval { grace }
    /// Nil in the state directory; a directory elsewhere (a filesystem the nodes share) is
    /// not copied through one node: its filesystem's snapshots are its backup.
    public var backupRefusal: String? {
        guard !isInStateDirectory else { return nil }
        return """
            artifacts are kept in \(root.path), outside the state directory: back that filesystem up with its own \
            tools (snapshots), and the database with its own
            """
    }
    public func companion(root: URL) -> any ArtifactStorage { DiskArtifactStorage(root: root, stateRoot: stateRoot) }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// `path(relative)` for a write, refused when `relative` could name a file outside the root.
    private func target(_ relative: String) throws -> String {
        guard ArtifactStore.isContained(relative) else { throw StoreError.io("\(relative) is not a path inside \(root.path)") }
        return path(relative)
    }

    // MARK: Writing

    public func place(_ source: String, at relative: String) throws {
        let final = try target(relative)
        try LocalFiles.makeParent(of: final)
        try LocalFiles.fsync(path: source)
        if source != final {
            guard rename(source, final) == 0 else { throw StoreError.fromErrno(errno, "cannot move \(source) to \(final)") }
        }
        try LocalFiles.fsyncDirectory(of: final)
    }

    public func write(_ data: Data, to relative: String) throws {
        try write(relative) { descriptor, temporary in
            try data.withUnsafeBytes { try LocalFiles.writeAll(descriptor, $0, name: temporary) }
        }
    }

    public func write(file path: String, range: Range<Int64>, to relative: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw StoreError.io("cannot open \(path)") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        try write(relative) { descriptor, temporary in
            var left = Int(range.count)
            while left > 0 {
                guard let chunk = try handle.read(upToCount: min(left, 1 << 20)), !chunk.isEmpty else {
                    throw StoreError.io("\(path) ends before byte \(range.upperBound)")
                }
                try chunk.withUnsafeBytes { try LocalFiles.writeAll(descriptor, $0, name: temporary) }
                left -= chunk.count
            }
        }
    }

    /// A new temporary file beside `relative`, filled by `fill`, fsynced and renamed in.
    private func write(_ relative: String, fill: (Int32, String) throws -> Void) throws {
        let temporary = try LocalFiles.temporaryPath(for: try target(relative))
        do {
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
            guard descriptor >= 0 else { throw StoreError.fromErrno(errno, "cannot create \(temporary)") }
            defer { close(descriptor) }
            try fill(descriptor, temporary)
            guard Glibc.fsync(descriptor) == 0 else { throw StoreError.fromErrno(errno, "cannot fsync \(temporary)") }
        } catch {
            unlink(temporary)
            throw error
        }
        do {
            try place(temporary, at: relative)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// A name of this attempt's own beside the artifact (hidden, `.tmp`: the sweep takes it if
    /// the process dies): a worker that turns out to have lost its job discards it, and another
    /// worker's file stays as it was — on a disk the nodes share as on one.
    public func workPath(for relative: String) throws -> String {
        try LocalFiles.temporaryPath(for: try target(relative))
    }

    public func publish(_ relative: String, from work: String) throws {
        try place(work, at: relative)
    }

    public func remove(_ relative: String) {
        guard ArtifactStore.isContained(relative) else { return }
        let target = path(relative)
        BackupLock(stateRoot: stateRoot).unlessBackingUp { unlink(target) }
    }

    public func removeAll(under prefix: String) throws {
        for entry in try list(prefix: prefix) { remove(entry.path) }
    }

    // MARK: Reading

    public func exists(_ relative: String) -> Bool {
        ArtifactStore.isContained(relative) && FileManager.default.fileExists(atPath: path(relative))
    }

    public func localCopy(of relative: String) throws -> LocalArtifact {
        guard ArtifactStore.isContained(relative) else { throw StoreError.io("artifact \(relative) is not a path inside the store") }
        return LocalArtifact(path: path(relative), isCopy: false)
    }

    public func readableCopy(of relative: String) async throws -> LocalArtifact? {
        exists(relative) ? LocalArtifact(path: path(relative), isCopy: false) : nil
    }

    public func download(_ relative: String, to target: String) throws -> Bool {
        guard exists(relative) else { return false }
        do {
            try FileManager.default.copyItem(atPath: path(relative), toPath: target)
        } catch {
            throw StoreError.io("cannot copy \(relative) to \(target): \(error.localizedDescription)")
        }
        return true
    }

    public func size(of relative: String) async throws -> Int? {
        guard ArtifactStore.isContained(relative) else { return nil }
        var info = stat()
        return stat(path(relative), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// Opened when the bytes are sent (Hummingbird's `FileIO` does the same), in 128 KiB chunks.
    public func read(_ relative: String, range: ClosedRange<Int>?) async throws -> ArtifactBytes {
        guard let size = try await size(of: relative) else { throw ArtifactMissing(path: relative) }
        let file = FilePath(path(relative))
        guard size > 0 else { return ArtifactBytes(count: 0) { _ in } }
        let bytes = (range ?? 0...(size - 1)).clamped(to: 0...(size - 1))
        return ArtifactBytes(count: bytes.count) { each in
            try await FileSystem.shared.withFileHandle(forReadingAt: file) { handle in
                for try await chunk in handle.readChunks(in: Int64(bytes.lowerBound)...Int64(bytes.upperBound), chunkLength: .kibibytes(128)) {
                    try await each(chunk)
                }
            }
        }
    }

    // MARK: Listing

    /// The month directories (`YYYY/MM` under any family), and every file that is not in one.
    /// Links are never followed: a symbolic link is itself a stray (removing it removes the
    /// link, not what it points to).
    public func layout() throws -> ArtifactLayout {
        var months = Set<String>()
        var strays: [String] = []
        let manager = FileManager.default
        func isDirectory(_ relative: String) -> Bool { LocalFiles.isRealDirectory(path(relative)) }
        func allFiles(under relative: String) -> [String] {
            guard let enumerator = manager.enumerator(atPath: path(relative)) else { return [] }
            return enumerator.compactMap { $0 as? String }.map { relative + "/" + $0 }.filter { !isDirectory($0) }
        }
        let families = Set(ArtifactStore.Family.allCases.map(\.rawValue))
        // `uploads/`: resumable uploads' appends, which the sweep judges by the open uploads.
        for top in (try? manager.contentsOfDirectory(atPath: root.path)) ?? [] where top != "uploads" || !isDirectory(top) {
            guard families.contains(top), isDirectory(top) else {
                strays += isDirectory(top) ? allFiles(under: top) : [top]
                continue
            }
            for year in (try? manager.contentsOfDirectory(atPath: path(top))) ?? [] {
                let yearPath = top + "/" + year
                guard year.count == 4, Int(year) != nil, isDirectory(yearPath) else {
                    strays += isDirectory(yearPath) ? allFiles(under: yearPath) : [yearPath]
                    continue
                }
                for month in (try? manager.contentsOfDirectory(atPath: path(yearPath))) ?? [] {
                    let monthPath = yearPath + "/" + month
                    if isDirectory(monthPath), ArtifactStore.monthBounds(year + "/" + month) != nil {
                        months.insert(year + "/" + month)
                    } else {
                        strays += isDirectory(monthPath) ? allFiles(under: monthPath) : [monthPath]
                    }
                }
            }
        }
        return ArtifactLayout(months: months, strays: strays)
    }

    /// The files under the directory `prefix` names (temporary files and links included, links
    /// not followed); nothing when it is not a real directory.
    public func list(prefix: String) throws -> [ArtifactEntry] {
        let directory = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        guard ArtifactStore.isContained(directory), LocalFiles.isRealDirectory(path(directory)),
              let enumerator = FileManager.default.enumerator(atPath: path(directory)) else { return [] }
        var entries: [ArtifactEntry] = []
        for case let name as String in enumerator {
            let full = directory + "/" + name
            var info = stat()
            guard lstat(path(full), &info) == 0 else { continue }
            guard (info.st_mode & S_IFMT) != S_IFDIR else { continue }
            entries.append(ArtifactEntry(path: full, size: Int64(info.st_size),
                                         modified: Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)))
        }
        return entries
    }

    // MARK: Operations

    /// The directory (or where a link to it leads: another disk) is there and takes a file.
    public func isReachable() async -> Bool {
        var info = stat()
        return stat(root.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR && access(root.path, W_OK) == 0
    }

    /// Nothing to claim: the directory belongs to the state directory (or, shared, to the
    /// nodes that mount it, all of one installation by `database.url`).
    public func claim(for installation: () throws -> String) throws -> String? { nil }

    public func removeWorkAreaLeftovers(before cutoff: Date) -> Int { 0 }
}
