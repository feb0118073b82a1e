import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One daemon per state directory: an exclusive `flock(2)` on `<state_dir>/tilawa.lock`,
/// held for the life of the process (the kernel releases it when the process ends, however
/// it ends, so a crash never leaves a stale lock behind).
///
/// Two daemons on one state directory would each sweep the other's staged uploads at start,
/// run the same scheduled notifications and fight over jobs; the second one started exits
/// instead, naming the first one's pid (written into the file by its holder). Command-line
/// tools (`ingest`, `jobs run`, `status`) do not take it: they are built to run beside the daemon.
public final class StateDirectoryLock: Sendable {
    /// Why the lock could not be taken.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another process holds it; its pid when the file names one.
        case held(path: String, pid: Int32?)
        /// The lock file cannot be opened or locked.
        case unusable(path: String, errno: Int32)

        /// Stable code.
        public var code: String {
            switch self {
            case .held: "state_dir_in_use"
            case .unusable: "state_dir_unusable"
            }
        }

        /// One line for the operator.
        public var description: String {
            switch self {
            case let .held(path, pid):
                "another tilawa serve\(pid.map { " (pid \($0))" } ?? "") is using this state directory (\(path) is locked); stop it, or give this one its own state_dir"
            case let .unusable(path, code):
                "cannot lock \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// The lock file.
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes the lock of `directory` (which must exist) without waiting.
    public static func acquire(in directory: StateDirectory) throws(Failure) -> StateDirectoryLock {
        let path = directory.root.appendingPathComponent("tilawa.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .unusable(path: path, errno: errno) }
        // The pid is written into the file: it must be a plain file of the state directory's
        // own, not a hard link to a file elsewhere (a link is refused by O_NOFOLLOW above).
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1 else {
            close(descriptor)
            throw .unusable(path: path, errno: EMLINK)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.readPid(descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw .held(path: path, pid: holder) }
            throw .unusable(path: path, errno: code)
        }
        // Name the holder for the next one who tries (a hint only; the lock is the flock).
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return StateDirectoryLock(path: path, descriptor: descriptor)
    }

    private static func readPid(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    deinit {
        close(descriptor)
    }
}
