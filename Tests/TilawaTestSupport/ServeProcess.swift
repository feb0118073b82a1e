import AsyncHTTPClient
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `tilawa serve` as a child process, its output kept in a file for diagnosis.
public final class ServeProcess {
    public let process = Process()
    public let logPath: String
    public let port: Int

    /// `command`: what to run instead of `tilawa serve` (a script that ends by exec'ing it).
    public init(stateDirectory: String, port: Int, directory: String, environment extra: [String: String] = [:],
                command: [String]? = nil) throws {
        self.port = port
        logPath = directory + "/serve.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        // Through env(1), which execs in place (same pid): a binary started straight from
        // Foundation's Process with libfaketime preloaded sees no arguments.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command ?? [tilawaBinary, "serve"]
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
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    public var pid: Int { Int(process.processIdentifier) }

    /// Waits (bounded) until `/readyz` answers 200; false if it never did or the process died.
    public func waitUntilReady(timeout: Duration = .seconds(60)) async -> Bool {
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
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
