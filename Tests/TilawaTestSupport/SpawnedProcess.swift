import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests' helpers.
///
/// Not Foundation's `Process`: on Linux its `run()` over-reads `/proc/self/fd` while closing
/// descriptors and crashes the whole test process now and then (swift-corelibs-foundation PR
/// 5472, in Swift 6.3.1; seen here in a full suite with a build beside it). Here the pipes are
/// made close-on-exec, so a child inherits only the descriptors it is given.
///
/// `@unchecked Sendable`: `pid` is immutable; `reaped` is only touched while `lock` is held.
public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var reaped: Int32?

    /// Starts `/usr/bin/env [-C directory] argv…` with `environment` (the whole environment)
    /// and the given descriptors as its standard input, output and error.
    public init(_ argv: [String], environment: [String: String], directory: String?, stdin: Int32, stdout: Int32, stderr: Int32) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else of this process reaches the child: a file a test holds open for writing
        // (not close-on-exec) would otherwise stay open in every child spawned meanwhile, and
        // its IN_CLOSE_WRITE would wait for them.
        Self.closeFrom(3, in: &actions)
        let arguments = ["/usr/bin/env"] + (directory.map { ["-C", $0] } ?? []) + argv
        let variables = environment.map { "\($0.key)=\($0.value)" }
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cVariables = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cVariables { free(pointer) }
        }
        var child: pid_t = 0
        Self.spawning.lock()
        let result = posix_spawn(&child, "/usr/bin/env", &actions, nil, &cArguments, &cVariables)
        Self.spawning.unlock()
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        pid = child
    }

    /// The raw wait status once the child has ended (reaping it), nil while it runs.
    private func poll() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let reaped { return reaped }
        var status: Int32 = 0
        while true {
            let answer = waitpid(pid, &status, WNOHANG)
            if answer == pid { reaped = status; return status }
            if answer == -1, errno == EINTR { continue }
            return nil
        }
    }

    public var isRunning: Bool { poll() == nil }

    /// Sends `signal` to the child unless it has been reaped; whether it was sent. A reaped
    /// child's pid may be another process's by now (pids wrap at 32,768 here, and a suite
    /// spawns thousands): a test signals its children only through this, never `kill(pid, …)`.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        // Unreaped, the pid is this child's, running or a zombie, until `poll` reaps it under this lock.
        return reaped == nil && kill(pid, signal) == 0
    }

    /// Waits for the end; the raw wait status.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        while true {
            if let status = poll() { return status }
            usleep(5_000)
        }
    }

    /// The exit status, or the signal's number when `signaled`.
    public var terminationStatus: Int32 {
        let status = waitUntilExit()
        return Self.signaled(status) ? status & 0x7F : (status >> 8) & 0xFF
    }

    /// Whether the child was killed by a signal.
    public var signaled: Bool { Self.signaled(waitUntilExit()) }

    static func signaled(_ status: Int32) -> Bool { (status & 0x7F) != 0 && (status & 0x7F) != 0x7F }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run
    /// time: Swift's Glibc module does not declare GNU extensions.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// Closes every descriptor from `lowest` up in the child: with `addclosefrom` where glibc
    /// has it, else one close action per descriptor `/proc/self/fd` lists (FileManager reads
    /// directory entries safely; a descriptor closed meanwhile is ignored by glibc's spawn).
    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom {
            _ = addCloseFrom(&actions, lowest)
            return
        }
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for fd in open where fd >= lowest { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    /// Held while a pipe is made close-on-exec and while a child is spawned, so that no child
    /// of these helpers inherits another one's pipe (`pipe2` is not in Swift's Glibc module).
    static let spawning = NSLock()

    /// A pipe whose two ends are closed on exec (the child gets only what it is given by dup2).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        spawning.lock()
        defer { spawning.unlock() }
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Starts `argv` with this process's environment plus `environment`, stdin from /dev/null,
    /// and its stdout and stderr into pipes; the child and the pipes' read ends (the caller
    /// reads them to their end, which closes them).
    public static func piped(_ argv: [String], environment: [String: String], directory: String?) throws
        -> (process: SpawnedProcess, stdout: Int32, stderr: Int32) {
        let out = try pipe(), err = try pipe()
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            close(null)
            close(out.write)
            close(err.write)
        }
        do {
            let process = try SpawnedProcess(argv, environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
                                             directory: directory, stdin: null, stdout: out.write, stderr: err.write)
            return (process, out.read, err.read)
        } catch {
            close(out.read)
            close(err.read)
            throw error
        }
    }

    /// Everything readable from `fd` until its end (retrying on EINTR), then closes it.
    public static func readAll(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { data.append(contentsOf: buffer[0..<count]); continue }
            if count == -1, errno == EINTR { continue }
            break
        }
        close(fd)
        return data
    }
}
