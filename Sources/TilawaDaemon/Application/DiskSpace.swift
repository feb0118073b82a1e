import Foundation

/// Free space of the filesystem holding a path.
public enum DiskSpace {
    /// Bytes available to an unprivileged writer, or nil when the path cannot be examined.
    public static func availableBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Total size of the filesystem holding a path, or nil.
    public static func totalBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_blocks) * Int64(info.f_frsize)
    }
}
