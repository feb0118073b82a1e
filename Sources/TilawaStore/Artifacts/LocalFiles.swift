import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The local file steps every artifact storage takes (a disk's artifacts, an S3 store's work
/// area): temporary names, parents made, and what a crash-safe rename needs fsynced.
public enum LocalFiles {
    /// A temporary path beside `final` (its directory made if needed): hidden, `.tmp`, this
    /// process's and this attempt's own, so the sweep takes it if the process dies.
    public static func temporaryPath(for final: String) throws -> String {
        try makeParent(of: final)
        let token = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let name = ".\(URL(fileURLWithPath: final).lastPathComponent).\(getpid())-\(token).tmp"
        return URL(fileURLWithPath: final).deletingLastPathComponent().appendingPathComponent(name).path
    }

    public static func makeParent(of file: String) throws {
        let parent = URL(fileURLWithPath: file).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw StoreError.io("cannot create \(parent.path): \(error.localizedDescription)")
        }
    }

    /// A directory itself, not a link to one (`lstat`).
    public static func isRealDirectory(_ absolute: String) -> Bool {
        var info = stat()
        return lstat(absolute, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    public static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, name: String) throws {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreError.fromErrno(errno, "cannot write \(name)")
            }
            offset += written
        }
    }

    public static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.fromErrno(errno, "cannot open \(path)") }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw StoreError.fromErrno(errno, "cannot fsync \(path)") }
    }

    public static func fsyncDirectory(of file: String) throws {
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError.fromErrno(errno, "cannot open \(directory)") }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw StoreError.fromErrno(errno, "cannot fsync \(directory)") }
    }
}
