import AsyncHTTPClient
import Foundation
import GRDB
import NIOCore
import Testing
import TilawaTestSupport

/// The real `tilawa serve` process: start-up, shutdown, restarts.
@Suite("tilawa serve as a process", .heavy)
struct DaemonProcessTests {
    /// The daemon's clock runs from Sunday 22 November 2026 15:00 UTC (week 12 of fall 2026 open).
    static let clock = ["LD_PRELOAD": CommandLineStateFixture.libfaketime, "FAKETIME": "@2026-11-22 15:00:00",
                        "FAKETIME_DONT_FAKE_MONOTONIC": "1"]

    @Test("A queued job left by a killed process is finished by the next start")
    func restartFinishesQueuedJobs() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let killed = try await state.run(["ingest", "--student", "S1001", "--week", "12", CommandLineStateFixture.fixture("speech.opus")],
                                   at: "2026-11-22 15:00:00", environment: ["TILAWA_FAILPOINT": "after_admission"])
        #expect(killed.signaled)
        let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: Self.clock)
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        var encoded = false
        for _ in 0..<600 where !encoded {
            encoded = (try? state.read { db in try String.fetchOne(db, sql: "SELECT state FROM submission") }) == "awaiting_feedback"
            if !encoded { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(encoded, "\(daemon.log)")
        #expect(await daemon.terminate() == 0)
    }

    @Test("A second daemon on the same state directory exits 69 naming the first; once the first stops, a new one starts")
    func oneDaemonPerStateDirectory() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let first = try ServeProcess(state: state, port: try unusedPort(), environment: Self.clock)
        #expect(await first.waitUntilReady(), "\(first.log)")
        let second = try await state.run(["serve"], environment: ["TILAWA_HTTP_PORT": String(try unusedPort())])
        #expect(second.status == 69)
        #expect(second.stderr == "tilawa: state_dir_in_use: another tilawa serve (pid \(first.pid)) is using this state directory "
            + "(\(URL(fileURLWithPath: state.stateDirectory).standardizedFileURL.path)/tilawa.lock is locked); stop it, or give this one its own state_dir\n")
        #expect(await first.terminate() == 0)
        let third = try ServeProcess(state: state, port: try unusedPort(), environment: Self.clock)
        #expect(await third.waitUntilReady(), "\(third.log)")
        #expect(await third.terminate() == 0)
    }

    @Test("SIGTERM with an upload in flight: the upload is answered, the daemon exits 0, nothing is half-written")
    func sigtermWithUploadInFlight() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: Self.clock)
        #expect(await daemon.waitUntilReady(), "\(daemon.log)")
        let token = try await state.run(["token", "issue", "--student", "S1002"], at: "2026-11-22 15:00:00").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let body = try Data(contentsOf: URL(fileURLWithPath: CommandLineStateFixture.fixture("speech_mono_s16_48k.wav")))
        let connection = try RawHTTPConnection(port: daemon.port)
        try connection.send("POST /v1/students/S1002/weeks/12/submissions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: audio/wav\r\nContent-Length: \(body.count)\r\n\r\n")
        try connection.send(body.prefix(body.count / 2))
        // SIGTERM once the daemon is writing this upload to staging (a file open there, seen in
        // /proc; swift-nio creates it unnamed until complete): a request not yet begun when
        // shutdown starts may rightly be refused.
        func writingStaging() -> Bool {
            let fds = "/proc/\(daemon.pid)/fd"
            return ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).contains { fd in
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + fd)) ?? "").contains("/staging")
            }
        }
        for _ in 0..<200 where !writingStaging() {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(writingStaging(), "the daemon never started writing the upload")
        daemon.process.signal(SIGTERM)
        try await Task.sleep(for: .milliseconds(300))
        try connection.send(body.suffix(from: body.count / 2))
        let answer = await connection.receiveAll()
        #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer.prefix(300))")
        // Services stop one after the other: the encode workers are told to stop only once the
        // server has answered, so a worker may have taken this upload's job and, by design,
        // finishes it first. It runs at nice 10; beside the rest of the suite on two cores that
        // took over 30 s twice in five full runs. Waiting longer is waiting for that job.
        #expect(await daemon.terminate(timeout: .seconds(120)) == 0, "\(daemon.log)")

        // Nothing half-written: the row exists with its original; the encode is done or queued.
        let row = try state.read { db in try Row.fetchOne(db, sql: "SELECT s.state, s.originalPath, j.state AS job FROM submission s JOIN job j ON j.subjectId = s.id") }
        #expect(row != nil)
        let staging = (try? FileManager.default.contentsOfDirectory(atPath: state.stateDirectory + "/staging")) ?? []
        #expect(staging.isEmpty)
        if row?["job"] as String? != "done" {
            let again = try ServeProcess(state: state, port: try unusedPort(), environment: Self.clock)
            #expect(await again.waitUntilReady())
            var done = false
            for _ in 0..<600 where !done {
                done = (try? state.read { db in try String.fetchOne(db, sql: "SELECT state FROM job") }) == "done"
                if !done { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(done)
            _ = await again.terminate()
        }
    }

    @Test("Under systemd: READY=1 once listening, STOPPING=1 on SIGTERM, spoken on $NOTIFY_SOCKET")
    func systemdNotifications() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let socket = try SystemdTestSocket(address: abstractTestAddress())
        var environment = Self.clock
        environment["NOTIFY_SOCKET"] = socket.address
        let daemon = try ServeProcess(state: state, port: try unusedPort(), environment: environment)
        let ready = try await socket.receive()
        #expect(ready.hasPrefix("READY=1"), "\(ready)")
        #expect(await daemon.waitUntilReady())
        daemon.process.signal(SIGTERM)
        let stopping = try await socket.receive()
        #expect(stopping == "STOPPING=1")
        #expect(await daemon.terminate() == 0)
    }

    @Test("A bad configuration value stops start-up with one line naming the key, exit 78")
    func badConfiguration() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let result = try await runProcess(tilawaBinary, ["serve"], environment: ["TILAWA_HTTP_PORT": "eighty", "TILAWA_STATE_DIR": scratch.path("var")],
                                    directory: scratch.path)
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("tilawa: bad_configuration: http.port: "))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}

extension RawHTTPConnection {
    /// Reads until the server closes the connection or 10 s pass, on a thread of its own.
    func receiveAll() async -> String {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.receiveAllBlocking()) }.start()
        }
    }

    private func receiveAllBlocking() -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if let text = String(data: data, encoding: .utf8), text.contains("\r\n\r\n"), let header = text.components(separatedBy: "\r\n\r\n").first,
               let lengthLine = header.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
               let length = Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
               data.count >= header.utf8.count + 4 + length {
                break
            }
        }
        return String(decoding: data, as: UTF8.self)
    }
}
