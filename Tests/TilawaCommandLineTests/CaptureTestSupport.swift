import Foundation
import Synchronization
import TilawaTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// An ALSA capture device made of a raw file: alsa-lib's `file` plugin reads each period
/// from `infile` through the real API, over the `null` PCM (which accepts any parameters
/// and delivers at once, so capture runs faster than real time). Once the input is used
/// up the file plugin keeps returning the last buffer it read, so inputs end in enough
/// silence (or tone) for the test's stop condition.
///
/// ```
/// pcm.fixture_file { type file; slave.pcm "null"; file "/dev/null"; infile "<raw>"; format "raw" }
/// pcm.fixture { type plug; slave { pcm "fixture_file"; format S16_LE; rate 48000; channels 1 }
///               hint { show on; description "Tilawa test fixture" } }
/// ```
///
/// The `plug` wrapper pins the file layer at what the raw input is (S16_LE, 48 kHz, mono)
/// whatever the client asks, and converts to the client's request. The configuration is
/// appended to the system one with `ALSA_CONFIG_PATH`, in the child's environment only.
struct ALSAFixture {
    /// The system configuration that defines `null` and the plugins.
    static let systemConfiguration = "/usr/share/alsa/alsa.conf"
    /// The device name the tests pass to `--device`.
    static let device = "fixture"
    static let sampleRate = 48_000

    let configurationPath: String
    let inputPath: String

    /// Writes `samples` as the raw input and the configuration that reads it, in `scratch`.
    init(in scratch: ScratchDirectory, samples: [Int16]) throws {
        inputPath = scratch.path("capture-input.s16")
        configurationPath = scratch.path("capture-alsa.conf")
        let bytes = samples.map(\.littleEndian).withUnsafeBufferPointer { Data(buffer: $0) }
        try bytes.write(to: URL(fileURLWithPath: inputPath))
        let configuration = """
            pcm.fixture_file {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(inputPath)"
                format "raw"
            }
            pcm.\(Self.device) {
                type plug
                slave {
                    pcm "fixture_file"
                    format S16_LE
                    rate \(Self.sampleRate)
                    channels 1
                }
                hint {
                    show on
                    description "Tilawa test fixture"
                }
            }

            """
        try configuration.write(toFile: configurationPath, atomically: true, encoding: .utf8)
    }

    /// The variables that make the child see the fixture.
    var environment: [String: String] {
        ["ALSA_CONFIG_PATH": "\(Self.systemConfiguration):\(configurationPath)"]
    }
}

/// 16-bit mono PCM for the capture tests: read from the WAV fixtures, or made here.
enum PCM {
    /// The samples of a 16-bit PCM mono WAV file (first `data` chunk).
    static func wavSamples(_ path: String) throws -> [Int16] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF",
              String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE" else { throw PCMError.notWAV(path) }
        var offset = 12
        var format: (channels: Int, bits: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                format = (u16(body + 2), u16(body + 14))
            } else if id == "data" {
                guard let format, format.channels == 1, format.bits == 16 else { throw PCMError.notMono16(path) }
                let end = min(bytes.count, body + size)
                return stride(from: body, to: end - 1, by: 2).map { Int16(bitPattern: UInt16(u16($0))) }
            }
            offset = body + size + (size & 1)
        }
        throw PCMError.notWAV(path)
    }

    /// A sine tone at `amplitude` (0…1 of full scale).
    static func tone(seconds: Double, frequency: Double = 440, amplitude: Double = 0.25) -> [Int16] {
        let count = Int(seconds * Double(ALSAFixture.sampleRate))
        return (0..<count).map { index in
            Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double(index) / Double(ALSAFixture.sampleRate))).rounded())
        }
    }

    /// Digital silence.
    static func silence(seconds: Double) -> [Int16] {
        [Int16](repeating: 0, count: Int(seconds * Double(ALSAFixture.sampleRate)))
    }

    /// The RMS level of each 20 ms frame in dBFS, as `CaptureStopDetector` measures it.
    static func frameLevels(_ samples: [Int16]) -> [Double] {
        stride(from: 0, to: samples.count - 959, by: 960).map { start in
            var squares = 0.0
            for sample in samples[start..<start + 960] {
                let value = Double(Float(sample) / 32768)
                squares += value * value
            }
            return 10 * log10(squares / 960)
        }
    }

    enum PCMError: Error { case notWAV(String), notMono16(String) }
}

/// A child process whose every wait is bounded: output is collected as it comes, stderr can
/// be watched for a line, signals can be sent, and a child that outlives its deadline is
/// killed (the result then says so) rather than hanging the test run.
///
/// `@unchecked Sendable`: the waits hand it to a thread of their own. Its state is the child
/// (`SpawnedProcess`, `Sendable`: its wait state is behind a lock) and two `Collected` buffers
/// (`Sendable`, behind a `Mutex`); nothing else changes after `init`, and each test drives its
/// process from one task at a time.
final class BoundedProcess: @unchecked Sendable {
    /// What a finished (or killed) child said.
    struct Result: Sendable {
        var status: Int32
        var timedOut: Bool
        var stdout: String
        var stderr: String
    }

    private let process: SpawnedProcess
    private let output = Collected()
    private let errors = Collected()

    /// Starts `executable` (found on `PATH` through `/usr/bin/env`, which execs it: the
    /// pid is the program's own, so signals reach it).
    init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String) throws {
        let (process, out, err) = try SpawnedProcess.piped([executable] + arguments, environment: environment, directory: directory)
        self.process = process
        output.follow(out)
        errors.follow(err)
    }

    deinit {
        process.signal(SIGKILL)
    }

    /// stderr so far.
    var stderr: String { errors.text }

    /// Waits until stderr satisfies `predicate`, the child exits, or `timeout` seconds pass —
    /// on a thread of its own, never on the cooperative pool the other tests' servers need.
    func waitForStderr(timeout: Double, until predicate: @escaping @Sendable (String) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.waitForStderrBlocking(timeout: timeout, until: predicate)) }.start()
        }
    }

    private func waitForStderrBlocking(timeout: Double, until predicate: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(errors.text) { return true }
            if !process.isRunning, errors.isClosed { return predicate(errors.text) }
            usleep(5_000)
        }
        return predicate(errors.text)
    }

    /// Sends `signal` once stderr satisfies `predicate` (or the child exits, or `timeout`
    /// passes), deciding and sending on a thread of its own: a reply the child waits for a
    /// short while (a second Ctrl-C) must not wait for a free thread of the test's pool.
    /// Returns whether the predicate held.
    func send(_ signal: Int32, whenStderr predicate: @escaping @Sendable (String) -> Bool, timeout: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                let seen = self.waitForStderrBlocking(timeout: timeout, until: predicate)
                if seen { self.send(signal) }
                continuation.resume(returning: seen)
            }.start()
        }
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) {
        process.signal(signal)
    }

    /// Waits for the child to exit, killing it after `timeout` seconds (on a thread of its own).
    func finish(timeout: Double) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.finishBlocking(timeout: timeout)) }.start()
        }
    }

    private func finishBlocking(timeout: Double) -> Result {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        let timedOut = process.isRunning
        if timedOut { process.signal(SIGKILL) }
        process.waitUntilExit()
        // The pipes close when the child is gone; bound the wait anyway.
        let drained = Date().addingTimeInterval(5)
        while !(output.isClosed && errors.isClosed), Date() < drained { usleep(5_000) }
        return Result(status: process.terminationStatus, timedOut: timedOut, stdout: output.text, stderr: errors.text)
    }

    /// Bytes read from one pipe by a thread of its own, as they come.
    private final class Collected: Sendable {
        private let state = Mutex<(data: Data, closed: Bool)>((Data(), false))

        /// Reads `fd` until its end (retrying on EINTR), then closes it.
        func follow(_ fd: Int32) {
            Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 16_384)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        state.withLock { $0.data.append(contentsOf: buffer[0..<count]) }
                    } else if count == -1, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                close(fd)
                state.withLock { $0.closed = true }
            }.start()
        }

        var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }
        var isClosed: Bool { state.withLock { $0.closed } }
    }
}

extension CommandLineStateFixture {
    /// Starts `tilawa` against this state directory with the ALSA fixture, the clock pinned
    /// at `time` as `run(_:at:)` does.
    func start(_ arguments: [String], alsa: ALSAFixture, at time: String?) throws -> BoundedProcess {
        var environment = alsa.environment.merging(self.environment) { $1 }
        environment["TILAWA_STATE_DIR"] = stateDirectory
        environment["TZ"] = "UTC"
        if let time {
            environment["LD_PRELOAD"] = Self.libfaketime
            environment["FAKETIME"] = time
            environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        }
        return try BoundedProcess(tilawaBinary, arguments, environment: environment, directory: scratch.path)
    }

    /// Runs `tilawa capture …` with the fixture to completion (at most `timeout` seconds).
    func capture(_ arguments: [String], alsa: ALSAFixture, at time: String? = nil, timeout: Double = TestTime.hangInterval) async throws -> BoundedProcess.Result {
        try await start(["capture", "--device", ALSAFixture.device] + arguments, alsa: alsa, at: time).finish(timeout: timeout)
    }

    /// Files left in `staging/`.
    var stagingContents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: stateDirectory + "/staging")) ?? []).sorted()
    }
}

/// Whether `text` holds a meter line (`mm:ss [bar] …`).
func containsMeterLine(_ text: String) -> Bool {
    text.range(of: #"\d\d:\d\d \[[#.]{30}\]"#, options: .regularExpression) != nil
}
