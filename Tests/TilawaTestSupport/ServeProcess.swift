import AsyncHTTPClient
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `tilawa serve` as a child process, its output kept in a file for diagnosis.
public final class ServeProcess {
    public let process: SpawnedProcess
    public let logPath: String
    public let port: Int

    /// `command`: what to run instead of `tilawa serve` (a script that ends by exec'ing it).
    public init(stateDirectory: String, port: Int, directory: String, environment extra: [String: String] = [:],
                command: [String]? = nil) throws {
        self.port = port
        logPath = directory + "/serve.log"
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            close(log)
            close(null)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["TILAWA_STATE_DIR"] = stateDirectory
        environment["TILAWA_HTTP_PORT"] = String(port)
        environment["TILAWA_HTTP_HOST"] = "127.0.0.1"
        environment["TZ"] = "UTC"
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        environment.removeValue(forKey: "WATCHDOG_USEC")
        // The daily digest depends on the hour a test runs: off unless a test asks for it.
        environment["TILAWA_NOTIFICATIONS_COACH_DIGEST"] = "none"
        environment.merge(extra) { _, new in new }
        // Through env(1), which execs in place (same pid): a binary started with libfaketime
        // preloaded keeps its arguments.
        process = try SpawnedProcess(command ?? [tilawaBinary, "serve"], environment: environment, directory: directory,
                                     stdin: null, stdout: log, stderr: log)
    }

    public var pid: Int { Int(process.pid) }

    /// Waits (bounded by `TestTime.hangLimit`) until `/readyz` answers 200; false if it never did or the process died.
    public func waitUntilReady(timeout: Duration = TestTime.hangLimit) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, process.isRunning {
            let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/readyz")
            if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(1)), response.status == .ok {
                return true
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Sends SIGTERM and waits (bounded) for the exit; SIGKILL if it does not come. Returns the exit status, nil if killed.
    public func terminate(timeout: Duration = .seconds(30)) async -> Int32? {
        guard process.isRunning else { return process.terminationStatus }
        process.signal(SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            process.signal(SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
