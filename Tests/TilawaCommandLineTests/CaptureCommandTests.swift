import Foundation
import GRDB
import Testing
import TilawaTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Week 12 of fall 2026 is open on Sunday 22 November 2026 (see `IngestCommandTests`).
private let midSemester = "2026-11-22 15:00:00"

/// `tilawa capture` through real alsa-lib, reading the ALSA file plugin (`ALSAFixture`).
@Suite("tilawa capture", .heavy)
struct CaptureCommandTests {
    /// The reference speech (11.06 s, 16-bit mono 48 kHz) followed by 10 s of digital silence.
    static func speechThenSilence() throws -> [Int16] {
        try PCM.wavSamples(CommandLineStateFixture.fixture("speech_mono_s16_48k.wav")) + PCM.silence(seconds: 10)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("Stops after --stop-after-silence seconds of silence once speech has begun; the submission is accepted")
    func stopsOnSilence() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let input = try Self.speechThenSilence()
        let alsa = try ALSAFixture(in: state.scratch, samples: input)
        let result = try await state.capture(["--student", "S1001", "--week", "12", "--stop-after-silence", "3", "--json"],
                                       alsa: alsa, at: midSemester)
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try Self.json(result.stdout)
        #expect(object["state"] as? String == "awaiting_feedback")
        #expect(object["week"] as? Int == 12)
        let analysis = try #require(object["analysis"] as? [String: Any])
        let duration = try #require(analysis["duration_seconds"] as? Double)

        // The speech ends with the last 20 ms frame at or above -50 dBFS; the recording keeps
        // the 3 s of silence after it and stops there, to the frame — well before the input
        // (and its 10 s of silence) runs out.
        let levels = PCM.frameLevels(input)
        let lastSound = try #require(levels.lastIndex { $0 >= -50 })
        let expected = Double(lastSound + 1) * 0.02 + 3
        #expect(abs(duration - expected) <= 0.02, "stopped at \(duration) s, expected \(expected) s")
        #expect(duration < Double(input.count) / 48_000 - 5)
        #expect(result.stderr.contains("3 s of silence after speech"))
        #expect(containsMeterLine(result.stderr))
        #expect(result.stderr.contains("recording"), "the meter says when speech has begun")

        let origin = try state.read { db in try String.fetchOne(db, sql: "SELECT origin FROM submission") }
        #expect(origin == "capture")
        #expect(state.stagingContents.isEmpty)
    }

    @Test("The stored original is the device's audio sample for sample, and its Opus encoding decodes")
    func originalMatchesInput() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let input = try Self.speechThenSilence()
        let alsa = try ALSAFixture(in: state.scratch, samples: input)
        let result = try await state.capture(["--student", "S1002", "--week", "12", "--stop-after-silence", "2"],
                                       alsa: alsa, at: midSemester)
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(try state.read { db in
            try Row.fetchOne(db, sql: "SELECT originalPath, audioPath, analysis FROM submission")
        })
        let original = state.stateDirectory + "/artifacts/" + (row["originalPath"] as String)
        #expect(original.hasSuffix(".wav"))
        let recorded = try PCM.wavSamples(original)
        #expect(recorded.count > 48_000 * 10)
        #expect(recorded.count <= input.count)
        #expect(recorded == Array(input.prefix(recorded.count)), "ALSA's plug layer passed 48 kHz mono S16 through untouched")

        // The analysis of the capture is the fixture's (manifest: -20.32 LUFS), silence aside.
        let analysis = try #require(try JSONSerialization.jsonObject(with: Data((row["analysis"] as String).utf8)) as? [String: Any])
        let loudness = try #require(analysis["loudness_lufs"] as? Double)
        #expect(abs(loudness - -20.32) < 0.2)
        let audio = state.stateDirectory + "/artifacts/" + (row["audioPath"] as String)
        #expect(try await runProcess("opusinfo", [audio]).status == 0)
    }

    @Test("--max-seconds ends the recording at exactly that length")
    func stopsAtMaximum() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let alsa = try ALSAFixture(in: state.scratch, samples: try Self.speechThenSilence())
        let result = try await state.capture(["--student", "S1001", "--week", "12", "--max-seconds", "12", "--json"],
                                       alsa: alsa, at: midSemester)
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.stderr)")
        let analysis = try #require(try Self.json(result.stdout)["analysis"] as? [String: Any])
        #expect(analysis["duration_seconds"] as? Double == 12)
        #expect(result.stderr.contains("reached --max-seconds 12"))
    }

    @Test("--output only encodes: no submission, no student needed, nothing left in staging")
    func outputOnlyEncodes() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let alsa = try ALSAFixture(in: state.scratch, samples: try Self.speechThenSilence())
        let output = state.scratch.path("take.opus")
        let result = try await state.capture(["--stop-after-silence", "2", "--output", output, "--json"], alsa: alsa)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.json(result.stdout)
        #expect(report["output"] as? String == output)
        let analysis = try #require(report["analysis"] as? [String: Any])
        #expect(analysis["file"] as? String == "alsa:fixture")
        #expect(try await runProcess("opusinfo", [output]).status == 0)
        let counts = try state.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection"))
        }
        #expect(counts.0 == 0 && counts.1 == 0)
        #expect(state.stagingContents.isEmpty)
    }

    @Test("An unknown device exits 74 with the available PCMs listed; nothing is recorded or audited")
    func unknownDevice() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let alsa = try ALSAFixture(in: state.scratch, samples: PCM.silence(seconds: 1))
        let process = try state.start(["capture", "--student", "S1001", "--week", "12", "--device", "no_such_pcm"],
                                      alsa: alsa, at: midSemester)
        let result = await process.finish(timeout: TestTime.hangInterval)
        #expect(result.status == 74)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("tilawa: device_not_found: no ALSA capture device \"no_such_pcm\"") == true, "\(result.stderr)")
        #expect(lines.contains("available PCMs:"))
        #expect(lines.contains("  fixture — Tilawa test fixture"))
        #expect(lines.contains { $0.hasPrefix("  null") })
        #expect(!result.stderr.contains("ALSA lib"), "alsa-lib's own messages are silenced")
        #expect(try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection") } == 0)
        #expect(state.stagingContents.isEmpty)
    }

    @Test("Ctrl-C once finishes the recording and keeps it")
    func interruptKeeps() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        // A minute of tone, repeated by the file plugin after it ends: only Ctrl-C (or the
        // 3600 s backstop) stops this capture. The plugin runs faster than real time, so the
        // backstop is far: on a loaded machine 600 s of audio went by before the test's Ctrl-C.
        let alsa = try ALSAFixture(in: state.scratch, samples: PCM.tone(seconds: 60))
        let output = state.scratch.path("take.opus")
        let process = try state.start(["capture", "--device", ALSAFixture.device, "--max-seconds", "3600",
                                       "--output", output, "--json"], alsa: alsa, at: nil)
        #expect(await process.waitForStderr(timeout: TestTime.hangInterval, until: containsMeterLine), "\(process.stderr)")
        process.send(SIGINT)
        let result = await process.finish(timeout: TestTime.hangInterval)
        #expect(!result.timedOut)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(": Ctrl-C"), "\(result.stderr)")
        let analysis = try #require(try Self.json(result.stdout)["analysis"] as? [String: Any])
        let duration = try #require((analysis["analysis"] as? [String: Any])?["duration_seconds"] as? Double)
        #expect(duration > 0 && duration < 600)
        #expect(try await runProcess("opusinfo", [output]).status == 0)
        #expect(state.stagingContents.isEmpty)
    }

    @Test("Ctrl-C twice aborts: exit 1, capture_aborted, no file anywhere")
    func interruptTwiceAborts() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let alsa = try ALSAFixture(in: state.scratch, samples: PCM.tone(seconds: 60))
        let output = state.scratch.path("take.opus")
        let process = try state.start(["capture", "--device", ALSAFixture.device, "--student", "S1001", "--week", "12",
                                       "--max-seconds", "3600"], alsa: alsa, at: midSemester)
        #expect(await process.waitForStderr(timeout: TestTime.hangInterval, until: containsMeterLine), "\(process.stderr)")
        process.send(SIGINT)
        // The second press must come after the first was taken (signals do not queue) and
        // within the 2 s the command waits for it.
        #expect(await process.send(SIGINT, whenStderr: { $0.contains("press Ctrl-C again") }, timeout: TestTime.hangInterval), "\(process.stderr)")
        let result = await process.finish(timeout: TestTime.hangInterval)
        #expect(!result.timedOut)
        #expect(result.status == 1)
        #expect(result.stderr.contains("tilawa: capture_aborted: "), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(state.stagingContents.isEmpty)
        let counts = try state.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rejection"))
        }
        #expect(counts.0 == 0 && counts.1 == 0, "an aborted capture is not an attempt and not a refusal")
    }

    @Test("The rules refuse before the device is even opened; usage errors exit 64")
    func refusedBeforeRecording() async throws {
        let state = try await CommandLineStateFixture()
        defer { state.remove() }
        let alsa = try ALSAFixture(in: state.scratch, samples: PCM.silence(seconds: 1))
        // Week 13 unlocks on 28 November: 77, although the device does not exist either.
        let locked = try await state.start(["capture", "--student", "S1001", "--week", "13", "--device", "no_such_pcm"],
                                     alsa: alsa, at: midSemester).finish(timeout: TestTime.hangInterval)
        #expect(locked.status == 77 && locked.stderr.hasPrefix("tilawa: week_locked: "), "\(locked.stderr)")
        #expect(!containsMeterLine(locked.stderr))
        let noStudent = try await state.capture(["--week", "12"], alsa: alsa, at: midSemester, timeout: TestTime.hangInterval)
        #expect(noStudent.status == 64)
        let badSilence = try await state.capture(["--student", "S1001", "--week", "12", "--stop-after-silence", "0"],
                                           alsa: alsa, at: midSemester, timeout: TestTime.hangInterval)
        #expect(badSilence.status == 64)
        #expect(try state.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission") } == 0)
    }
}
