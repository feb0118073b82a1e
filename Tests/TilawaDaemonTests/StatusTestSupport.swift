import AsyncHTTPClient
import Foundation
import GRDB
@_spi(Testing) import TilawaStore
import TilawaTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Rows for status tests, written straight into the real schema (the rules that would
/// produce them are tested elsewhere; here only what `status` reads matters).
struct StatusSeed {
    let database: AppDatabase

    func submission(
        _ id: String, student: String, state: String, receivedAt: Date, originalPath: String? = nil, originalBytes: Int = 0,
        audioPath: String? = nil, audioBytes: Int? = nil, waveformPath: String? = nil
    ) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO submission (id, studentId, semesterId, kind, week, state, receivedAt, late, analysis, source, warnings,
                                        originalPath, originalBytes, audioPath, audioBytes, waveformPath, origin)
                SELECT ?, id, semesterId, 'week', 12, ?, ?, 0, '{}', '{}', '[]', ?, ?, ?, ?, ?, 'cli' FROM student WHERE id = ?
                """, arguments: [id, state, receivedAt, originalPath, originalBytes, audioPath, audioBytes, waveformPath, student])
            guard db.changesCount == 1 else { throw SeedError.unknownStudent(student) }
        }
    }

    func rejection(student: String, code: String, at date: Date) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO rejection (studentId, slot, receivedAt, code, reasons, message, detail, origin, bytes)
                VALUES (?, '12', ?, ?, '[]', 'refused', '', 'http', 100)
                """, arguments: [student, date, code])
        }
    }

    func event(student: String, at date: Date, deliveredAt: Date? = nil) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO event (id, studentId, type, payload, occurredAt, deliveredAt, nextAttemptAt)
                VALUES (?, ?, 'submission_received', '{}', ?, ?, ?)
                """, arguments: [UUID().uuidString, student, date, deliveredAt, date])
        }
    }

    func job(state: String, createdAt: Date) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO job (kind, subjectId, state, attempts, createdAt, notBefore) VALUES ('encode_submission', ?, ?, 1, ?, ?)
                """, arguments: [UUID().uuidString, state, createdAt, createdAt])
        }
    }

    func dropFile(coach: String, outcome: String, at date: Date) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO dropFile (sha256, coachId, fileName, outcome, reason, processedAt) VALUES (?, ?, 'x.m4a', ?, NULL, ?)
                """, arguments: [UUID().uuidString, coach, outcome, date])
        }
    }

    enum SeedError: Error { case unknownStudent(String) }
}

/// Writes a small file at `path`, creating its folders.
func writeFile(_ path: String, bytes: Int = 16) throws {
    try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                            withIntermediateDirectories: true)
    try Data(repeating: 0x55, count: bytes).write(to: URL(fileURLWithPath: path))
}

/// A loopback TCP port nothing listens on right now (bound to port 0, read back, closed).
func unusedPort() throws -> Int {
    let (descriptor, port) = try boundSocket()
    close(descriptor)
    return port
}

/// A loopback listener that completes TCP handshakes (the kernel does) but never answers:
/// a hung daemon. Close the descriptor when done.
func silentListener() throws -> (descriptor: Int32, port: Int) {
    let (descriptor, port) = try boundSocket()
    guard listen(descriptor, 8) == 0 else {
        close(descriptor)
        throw PortError.socket(errno)
    }
    return (descriptor, port)
}

private func boundSocket() throws -> (Int32, Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw PortError.socket(errno) }
    var keep = false
    defer { if !keep { close(descriptor) } }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw PortError.socket(errno) }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw PortError.socket(errno) }
    keep = true
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

enum PortError: Error { case socket(Int32) }

/// `tilawa serve` as a child process, its output kept in a file for diagnosis.
final class ServeProcess {
    let process = Process()
    let logPath: String
    let port: Int

    init(stateDirectory: String, port: Int, directory: String, environment extra: [String: String] = [:]) throws {
        self.port = port
        logPath = directory + "/serve.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        // Through env(1), which execs in place (same pid): a binary started straight from
        // Foundation's Process with libfaketime preloaded sees no arguments.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tilawaBinary, "serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["TILAWA_STATE_DIR"] = stateDirectory
        environment["TILAWA_HTTP_PORT"] = String(port)
        environment["TILAWA_HTTP_HOST"] = "127.0.0.1"
        environment["TZ"] = "UTC"
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        environment.removeValue(forKey: "WATCHDOG_USEC")
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    var pid: Int { Int(process.processIdentifier) }

    /// Waits (bounded) until `/readyz` answers 200; false if it never did or the process died.
    func waitUntilReady(timeout: Duration = .seconds(60)) async -> Bool {
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
    func terminate(timeout: Duration = .seconds(30)) async -> Int32? {
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

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
