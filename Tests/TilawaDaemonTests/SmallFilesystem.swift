import Foundation
import TilawaDaemon
import TilawaTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A small size-capped filesystem (tmpfs) for a state directory whose disk fills, mounted by a
/// test that runs as root (CI); `available` is false elsewhere, and such a test is skipped.
struct SmallFilesystem {
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

    /// Runs `body` with a filesystem of `megabytes` mounted at a new temporary directory, then
    /// unmounts it and removes the directory, whichever way `body` ends (a thrown error too).
    static func withMounted<T>(megabytes: Int, _ body: (SmallFilesystem) async throws -> T) async throws -> T {
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-small-\(UUID().uuidString)").path
        let small = try await SmallFilesystem(megabytes: megabytes, at: mountPoint)
        defer {
            small.unmount()
            try? FileManager.default.removeItem(atPath: mountPoint)
        }
        return try await body(small)
    }

    /// Fills the filesystem until about `leaving` bytes are free.
    func fill(leaving: Int64) throws -> String {
        let filler = path + "/filler"
        let free = DiskSpace.availableBytes(at: path) ?? 0
        try Data(repeating: 0, count: Int(max(0, free - leaving))).write(to: URL(fileURLWithPath: filler))
        return filler
    }

    /// Fills the filesystem to its last byte with one file, written until the kernel refuses
    /// even one more byte (ENOSPC), whatever else writes there meanwhile; the file's path.
    func fillCompletely() throws -> String {
        let filler = path + "/filler"
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.fill(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x55, count: 1 << 20)
        var size = chunk.count
        while size > 0 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
            if written > 0 { continue }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno != ENOSPC { throw Failure.fill(String(cString: strerror(errno))) }
            // Full for this size: smaller writes take what is left, down to one byte.
            size /= 2
        }
        return filler
    }

    func unmount() { _ = try? runProcessBlocking("umount", ["-l", path]) }

    enum Failure: Error { case mount(String), fill(String) }
}
