import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe file placement: write under a temporary name, fsync, rename, fsync the directory.
///
/// After `commit` returns, the file is on disk under its final name even if power fails
/// next; before it, the final name either does not exist or still holds the old content.
public enum DurableFile {
    /// A fresh temporary path beside `finalPath`, hidden and marked `.tmp` so sweeps recognise it.
    public static func temporaryPath(for finalPath: String) -> String {
        let url = URL(fileURLWithPath: finalPath)
        let token = UInt64.random(in: 0...UInt64.max)
        let name = ".\(url.lastPathComponent).\(getpid())-\(String(token, radix: 36)).tmp"
        return url.deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Flushes `temporaryPath` to disk, renames it to `finalPath` and flushes the directory.
    public static func commit(_ temporaryPath: String, to finalPath: String) throws(OpusEncoderError) {
        try sync(path: temporaryPath, flags: O_RDONLY)
        guard rename(temporaryPath, finalPath) == 0 else {
            throw .io("cannot rename to \(finalPath): \(String(cString: strerror(errno)))")
        }
        try sync(path: URL(fileURLWithPath: finalPath).deletingLastPathComponent().path, flags: O_RDONLY | O_DIRECTORY)
    }

    /// Removes a file if it exists; failures are ignored because the start-up sweep collects leftovers.
    public static func discard(_ path: String) {
        unlink(path)
    }

    private static func sync(path: String, flags: Int32) throws(OpusEncoderError) {
        let descriptor = open(path, flags)
        guard descriptor >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .io("fsync \(path) failed: \(String(cString: strerror(errno)))") }
    }
}
