import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh, empty directory under the system's temporary folder, removed by `remove()`.
public struct ScratchDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func contents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// What a finished child process said.
public struct ProcessResult: Sendable {
    public var status: Int32
    /// True when the process was killed by a signal (`status` is then the signal number).
    public var signaled: Bool
    public var stdout: String
    public var stderr: String
    /// True when the process outlived its time budget and was killed.
    public var timedOut = false
}

/// Runs a program to completion (searching `PATH`), capturing its output.
///
/// - Parameters:
///   - environment: variables added to (or replacing) this process's environment.
///   - directory: the working directory, this process's when nil.
///   - timeout: a budget after which the process is killed (SIGKILL) and reported `timedOut`:
///     a hang becomes a failure instead of a stuck suite.
///
/// The waiting happens on a thread of its own, never on the cooperative pool: a test that waits
/// for a child process must not take one of the few threads (two on a 2-core machine) that
/// every live server of the other tests needs to answer.
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
    timeout: TimeInterval? = nil
) async throws -> ProcessResult {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result {
                try runProcessBlocking(executable, arguments, environment: environment, directory: directory, timeout: timeout)
            })
        }
        thread.start()
    }
}

/// `runProcess` on the calling thread: only where no async context exists (a static
/// initializer, a `defer`), never in a test body.
public func runProcessBlocking(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
    timeout: TimeInterval? = nil
) throws -> ProcessResult {
    let (process, out, err) = try SpawnedProcess.piped([executable] + arguments, environment: environment, directory: directory)
    let watchdog = timeout.map { budget -> DispatchWorkItem in
        let item = DispatchWorkItem { [process] in process.signal(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + budget, execute: item)
        return item
    }
    let started = Date()
    // Read both pipes concurrently with the child so a chatty child cannot fill one and block.
    let stderrData = LockedData()
    let reader = Thread { stderrData.set(SpawnedProcess.readAll(err)) }
    reader.start()
    let stdout = SpawnedProcess.readAll(out)
    process.waitUntilExit()
    watchdog?.cancel()
    while !stderrData.isSet { usleep(1_000) }
    var result = ProcessResult(
        status: process.terminationStatus,
        signaled: process.signaled,
        stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderrData.value, as: UTF8.self))
    if let timeout, result.signaled, result.status == SIGKILL, Date().timeIntervalSince(started) >= timeout { result.timedOut = true }
    return result
}

/// A `Data` set once from another thread.
///
/// `@unchecked Sendable`: both members are only touched while `lock` is held.
private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) { lock.withLock { data = value } }
    var isSet: Bool { lock.withLock { data != nil } }
    var value: Data { lock.withLock { data ?? Data() } }
}

/// The package's root folder.
public let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `tilawa` binary built beside the tests: in the build's own products folder (the one
/// holding the test bundle), so a release build or a custom `--scratch-path` finds its own.
public let tilawaBinary: String = {
    var folder = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
    // The runner may be the bundle's binary inside `tilawaPackageTests.xctest/…` (or a helper beside it).
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent("tilawa").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        folder.deleteLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/tilawa").path
}()

/// The committed audio fixtures.
public let fixturesDirectory: URL = packageRoot.appendingPathComponent("audio-fixtures")

/// Blocking work (a backup, a synchronous intake) on a thread of its own, never on the
/// cooperative pool, whose two threads on a 2-core machine every live test server needs.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The environment with which the test servers' scripts (`scripts/s3-server.sh`,
/// `scripts/pg-server.sh`) tie a server to this process: a watcher stops it once this process
/// is gone, however the run ended, if a test never got to its `stop()`.
public let serverOwner: [String: String] = ["TILAWA_TEST_SERVER_OWNER": String(getpid())]
