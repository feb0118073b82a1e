import Foundation

/// `uploads/` in the state directory: the bytes of resumable uploads, one `<id>.part` file
/// each, kept across requests and restarts (unlike `staging/`, which the start-up sweep
/// empties). Ids are the daemon's own (`upl_…`), never a client's text.
///
/// The database is the truth about how many bytes count: a file may hold more than its
/// upload's recorded offset (a process died between writing and recording), never fewer,
/// because bytes are fsynced before the offset that covers them is recorded; `prepare(id:offset:)`
/// cuts such a tail off before the next append.
public struct UploadStagingArea: Sendable, Equatable {
    /// The directory itself.
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    /// The file holding an upload's bytes.
    public func path(for id: String) -> String {
        root.appendingPathComponent("\(id).part").path
    }

    /// Creates the directory (owner and group only) if needed.
    public func prepareDirectory() throws {
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw StoreError.io("cannot create \(root.path): \(error.localizedDescription)")
        }
    }

    /// Makes the file of upload `id` exactly `offset` bytes long (creating it when new), so
    /// the next append starts where the recorded offset says. Fails when the file holds fewer
    /// bytes than recorded (it was tampered with or lost): the upload cannot be resumed.
    public func prepare(id: String, offset: Int64) throws {
        let path = path(for: id)
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StoreError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw StoreError.io("\(path) is not a regular file") }
        if Int64(info.st_size) < offset { throw StoreError.io("\(path) holds \(info.st_size) bytes, fewer than the \(offset) recorded") }
        if Int64(info.st_size) > offset {
            guard ftruncate(fd, off_t(offset)) == 0, fsync(fd) == 0 else { throw StoreError.io("cannot truncate \(path): \(String(cString: strerror(errno)))") }
        }
        if info.st_size == 0 && offset == 0 { Self.syncDirectory(root.path) }
    }

    /// Truncates the file back to `offset` (bytes that failed their checksum).
    public func truncate(id: String, to offset: Int64) throws {
        try prepare(id: id, offset: offset)
    }

    /// A hard link of the complete upload in `staging/`, owned by the returned `StagedFile`:
    /// the intake consumes the link (placing or deleting it) while the upload keeps its own
    /// name until its answer is recorded, so a crash in between can judge it again.
    public func stageForIntake(id: String, in stateDirectory: StateDirectory, fileExtension: String) throws -> StagedFile {
        let staged = stateDirectory.newStagedFile(extension: fileExtension)
        guard link(path(for: id), staged.path) == 0 else {
            let reason = String(cString: strerror(errno))
            staged.discard()
            throw StoreError.io("cannot stage upload \(id): \(reason)")
        }
        return staged
    }

    /// Deletes an upload's bytes (missing is fine).
    public func remove(id: String) {
        unlink(path(for: id))
        unlink(verifiedPath(for: id))
    }

    // MARK: Uploads resumed on any node (artifacts in a shared store)

    /// The file saying how many leading bytes of an upload's `.part` file are the recorded
    /// ones (`<id>.held`, decimal). With artifacts in a shared store, another node may have
    /// recorded bytes this node never saw, or this node may hold bytes whose record lost to
    /// another node's: only this prefix is trusted, the rest is fetched again.
    func verifiedPath(for id: String) -> String {
        root.appendingPathComponent("\(id).held").path
    }

    /// How many leading bytes of upload `id`'s file are known to be the recorded ones.
    public func verifiedOffset(id: String) -> Int64 {
        guard let text = try? String(contentsOfFile: verifiedPath(for: id), encoding: .utf8) else { return 0 }
        return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Records that the first `offset` bytes of upload `id`'s file are the recorded ones
    /// (after the record committed: a crash before leaves a smaller number, which only costs a fetch).
    public func markVerified(id: String, offset: Int64) throws {
        let temporary = verifiedPath(for: id) + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data("\(offset)\n".utf8)),
              rename(temporary, verifiedPath(for: id)) == 0 else {
            unlink(temporary)
            throw StoreError.io("cannot record the verified length of upload \(id)")
        }
    }

    /// Makes upload `id`'s file hold exactly its first `offset` recorded bytes: the prefix this
    /// node already verified is kept, and what other nodes recorded after it is fetched from
    /// `segments` (the upload's recorded appends, in order) in `storage`. Blocks (the
    /// fetches): call it on a thread of its own.
    public func restore(id: String, offset: Int64, segments: [UploadSegment], from storage: any ArtifactStorage) throws {
        let path = path(for: id)
        var have = min(verifiedOffset(id: id), offset)
        // A verified prefix ends where a recorded append ends; anything else is not trusted.
        if have > 0, have < offset, !segments.contains(where: { $0.startOffset + $0.length == have }) { have = 0 }
        try prepareFile(path, keeping: have)
        if have < offset {
            let piece = path + ".fetch"
            defer { unlink(piece) }
            for segment in segments where segment.startOffset + segment.length > have && segment.startOffset < offset {
                guard segment.startOffset == have, segment.startOffset + segment.length <= offset else {
                    throw StoreError.io("upload \(id)'s recorded appends do not line up at byte \(have)")
                }
                unlink(piece)
                guard try storage.download(segment.object, to: piece) else {
                    throw StoreError.io("upload \(id)'s bytes from \(segment.startOffset) are missing from \(storage.description)")
                }
                try Self.append(piece, to: path, expecting: segment.length)
                have += segment.length
            }
            guard have == offset else { throw StoreError.io("upload \(id)'s recorded appends reach byte \(have), not \(offset)") }
        }
        try markVerified(id: id, offset: offset)
    }

    /// Truncates (or creates) the file at `path` to `length` bytes, fsynced; fails when it holds fewer.
    private func prepareFile(_ path: String, keeping length: Int64) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw StoreError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw StoreError.io("\(path) is not a regular file") }
        let size = Int64(info.st_size) < length ? 0 : length
        guard ftruncate(fd, off_t(size)) == 0, fsync(fd) == 0 else { throw StoreError.io("cannot truncate \(path): \(String(cString: strerror(errno)))") }
        if size < length { throw StoreError.io("\(path) holds fewer bytes than it verified") }
    }

    /// Appends the whole file `piece` (`length` bytes) to `path`, fsynced.
    private static func append(_ piece: String, to path: String, expecting length: Int64) throws {
        guard let bytes = FileManager.default.contents(atPath: piece), Int64(bytes.count) == length else {
            throw StoreError.io("an upload's fetched bytes are not \(length) long")
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { buffer -> Int in
            var done = 0
            while done < buffer.count {
                let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n <= 0 { return done }
                done += n
            }
            return done
        }
        guard written == bytes.count, fsync(fd) == 0 else { throw StoreError.io("cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    /// Removes every entry that is not the `.part` file of an upload in `keep` (links and
    /// directories included, never followed) and was last changed before `changedBefore` (an
    /// upload created while the caller read `keep` is not taken); returns how many were removed.
    @discardableResult
    public func sweep(keeping keep: Set<String>, changedBefore: Date) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return 0 }
        var removed = 0
        for name in names {
            let path = root.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let isFile = (info.st_mode & S_IFMT) == S_IFREG
            if isFile, name.hasSuffix(".part") || name.hasSuffix(".held"), keep.contains(String(name.dropLast(5))) { continue }
            if Double(info.st_mtim.tv_sec) >= changedBefore.timeIntervalSince1970 { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                try? FileManager.default.removeItem(atPath: path)
            } else {
                unlink(path)
            }
            removed += 1
        }
        return removed
    }

    /// Bytes held by the files in the directory.
    public func bytesHeld() -> Int64 {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return 0 }
        return names.reduce(0) { total, name in
            var info = stat()
            return lstat(root.appendingPathComponent(name).path, &info) == 0 ? total + Int64(info.st_size) : total
        }
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

extension StateDirectory {
    /// `uploads/`: resumable uploads' bytes.
    public var uploadStaging: UploadStagingArea { UploadStagingArea(root: root.appendingPathComponent("uploads")) }
}
