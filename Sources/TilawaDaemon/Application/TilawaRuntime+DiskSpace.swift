import Foundation

extension TilawaRuntime {
    /// Whether the state directory's disk has less room than `storage.min_free_bytes`: uploads
    /// are refused (507 `storage_full`), no encode job is claimed, and a job that fails
    /// meanwhile waits for room rather than using an attempt. False when the disk cannot be examined.
    public var isDiskLow: Bool {
        Self.diskIsLow(at: stateDirectory.root.path, minimum: configuration.storage.minFreeBytes)
    }

    /// `isDiskLow` as a check that holds no runtime (for the encode runner).
    var diskLowCheck: @Sendable () -> Bool {
        let root = stateDirectory.root.path, minimum = configuration.storage.minFreeBytes
        return { Self.diskIsLow(at: root, minimum: minimum) }
    }

    static func diskIsLow(at path: String, minimum: Int) -> Bool {
        DiskSpace.availableBytes(at: path).map { $0 < Int64(minimum) } ?? false
    }
}
