import CFileShims
import Crypto
import Foundation
import Glibc

/// The file work of backups: copy-while-hashing, hard links, fsyncs, hashing.
enum BackupFiles {
    /// Copies `source` to `destination` (which must not exist) while hashing it. Returns the
    /// size and SHA-256, or nil when the source does not exist. Not synced here: the caller's
    /// `FilesystemSync` makes every copy durable at once before the manifest is written.
    static func copy(_ source: String, to destination: String) throws -> (size: Int64, sha256: String)? {
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard output >= 0 else { throw BackupError("cannot_write", "cannot create \(destination): \(String(cString: strerror(errno)))") }
        do {
            let result = try read(source) { piece in
                var offset = 0
                while offset < piece.count {
                    let written = piece.withUnsafeBytes { write(output, $0.baseAddress! + offset, piece.count - offset) }
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw BackupError("cannot_write", "cannot write \(destination): \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
            guard let result else {
                close(output)
                unlink(destination)
                return nil
            }
            close(output)
            return result
        } catch {
            close(output)
            unlink(destination)
            throw error
        }
    }

    /// The size and SHA-256 of `path`, or nil when it does not exist.
    static func hash(_ path: String) throws -> (size: Int64, sha256: String)? {
        try read(path) { _ in }
    }

    /// Reads `path` (never through a link) in 1 MiB pieces, handing each to `body` and hashing
    /// it; its size and SHA-256, or nil when it does not exist.
    private static func read(_ path: String, _ body: (ArraySlice<UInt8>) throws -> Void) throws -> (size: Int64, sha256: String)? {
        let input = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if input < 0 {
            if errno == ENOENT { return nil }
            throw BackupError("cannot_read", "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(input) }
        var hasher = SHA256()
        var size: Int64 = 0
        // Sized to the file, at most 1 MiB: a megabyte zeroed for each small file was 4% of a backup.
        var info = Glibc.stat()
        let expected = fstat(input, &info) == 0 ? Int(info.st_size) : 1 << 20
        var buffer = [UInt8](repeating: 0, count: min(1 << 20, max(4096, expected + 1)))
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw BackupError("cannot_read", "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            hasher.update(data: buffer[0..<count])
            try body(buffer[0..<count])
            size += Int64(count)
        }
        return (size, hex(hasher.finalize()))
    }

    /// Size and modification time of a regular file (not following a link), or nil.
    static func stat(_ path: String) -> (size: Int64, modified: Double)? {
        var info = Glibc.stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int64(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// Makes everything written below a directory durable at once: one syncfs(2) of its
    /// filesystem instead of an fsync per file and folder (a backup of a million files spent
    /// most of its time in those). Opened before the first write, so that `sync()` also fails
    /// on a write-back error of any of them (Linux ≥ 5.8 reports those to syncfs).
    final class FilesystemSync {
        private let descriptor: Int32
        private let path: String

        init(_ path: String) throws {
            descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            self.path = path
            guard descriptor >= 0 else { throw BackupError("cannot_write", "cannot open \(path): \(String(cString: strerror(errno)))") }
        }

        func sync() throws {
            guard tilawa_syncfs(descriptor) == 0 else {
                throw BackupError("cannot_write", "cannot flush \(path) to its disk: \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(descriptor) }
    }

    /// Creates the directories of `path` (relative to `root`), remembering each.
    static func makeParents(of path: String, under root: String, made: inout Set<String>) throws {
        var directory = root
        for component in path.split(separator: "/").dropLast() {
            directory += "/" + component
            if made.contains(directory) { continue }
            if mkdir(directory, 0o750) != 0, errno != EEXIST {
                throw BackupError("cannot_write", "cannot create \(directory): \(String(cString: strerror(errno)))")
            }
            made.insert(directory)
        }
    }

    /// fsyncs a directory (its entries are durable).
    static func syncDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupError("cannot_write", "cannot open \(path)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw BackupError("cannot_write", "cannot fsync \(path)") }
    }

    /// Writes `data` to `path` through a temporary name, fsynced, then renamed and the folder fsynced.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = path + ".partial"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw BackupError("cannot_write", "cannot create \(temporary)") }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0 else {
            close(descriptor)
            unlink(temporary)
            throw BackupError("cannot_write", "cannot write \(temporary)")
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw BackupError("cannot_write", "cannot rename \(temporary)") }
        try syncDirectory((path as NSString).deletingLastPathComponent)
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 0xF)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `path` is missing, or an empty directory.
    static func isAbsentOrEmpty(_ path: String) -> Bool {
        var info = Glibc.stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return false }
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["?"]).isEmpty
    }
}
