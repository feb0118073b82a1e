import Foundation
import Glibc

/// `backup.lock` in the state directory: a backup holds it exclusively while it copies, and
/// every removal of an artifact takes it shared, without waiting. So while a backup runs no
/// file is removed — a recording withdrawn or an original pruned meanwhile stays on disk as an
/// orphan the sweeper removes later — and every file the backup's snapshot references is still
/// there when the backup reaches it. `flock` locks belong to one open file, so this holds
/// between threads of one process as between processes.
public struct BackupLock: Sendable {
    public let path: String

    public init(stateRoot: URL) {
        path = stateRoot.appendingPathComponent("backup.lock").path
    }

    /// Runs `body` unless a backup is running; whether it ran. Without a lock file that can be
    /// made (a read-only state directory) no backup can be running either, and `body` runs.
    @discardableResult
    public func unlessBackingUp(_ body: () -> Void) -> Bool {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            body()
            return true
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return false }
        body()
        return true
    }

    /// Takes the lock for a backup: the descriptor to close when done, or `backup_running`.
    func acquire() throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw BackupError("cannot_write", "cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw BackupError("backup_running", "another backup of this state directory is running; wait for it to finish")
        }
        return descriptor
    }
}
