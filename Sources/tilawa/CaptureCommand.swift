import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore
import TilawaDaemon
import TilawaStore

#if canImport(Glibc)
import Glibc
#endif

/// `tilawa capture --student ID --week N`: records from an ALSA device with a live level
/// meter, then submits the recording through the same pipeline as `tilawa ingest`
/// (or, with `--output`, only encodes it).
struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Record from a microphone (ALSA) and submit the recording, or encode it with --output.",
        discussion: """
            Records 48 kHz mono from the ALSA device (ALSA converts from whatever the device \
            delivers), showing elapsed time, the peak level and CLIP on stderr. Stops at \
            --max-seconds, after --stop-after-silence seconds below -50 dBFS once speech has \
            begun (200 ms at or above -45 dBFS), or on Ctrl-C: the first press finishes and \
            keeps the recording, a second one within 2 s discards it.

            Exit status: as `tilawa ingest` (0 accepted and encoded, 65 refused for its audio, \
            75 attempt limit, 77 refused by a rule, 64 usage), 74 the device could not be \
            opened or failed (the message lists the available PCMs), 73 the recording could \
            not be written, 1 aborted with Ctrl-C twice (nothing kept). With --output: 0 \
            written, 65 nothing usable was recorded, 73 the output could not be written.
            """
    )

    @Option(help: "The student's id (required unless --output is given).")
    var student: String?

    @Option(help: "The week (1-15), eoc or assessment (required unless --output is given).")
    var week: String?

    @Option(help: "The ALSA PCM to record from (`arecord -L` lists them).")
    var device = "default"

    @Option(help: "Stop after this many seconds.")
    var maxSeconds: Double = 900

    @Option(help: "Stop after this many seconds of silence once speech has begun.")
    var stopAfterSilence: Double?

    @Option(help: "Only encode the recording to this Ogg Opus file; nothing is submitted (--student and --week are then ignored).")
    var output: String?

    @Flag(help: "Print the submission (or, with --output, the encoding) as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    /// Exit status of a capture discarded with Ctrl-C twice: a plain failure, not a signal
    /// death (130), because the process finished on its own and removed the file.
    static let abortedStatus: Int32 = 1

    /// How long after a first Ctrl-C a second one still discards the recording. Past it the
    /// recording is handed to the pipeline and Ctrl-C ends the process as usual (what was
    /// admitted by then stays admitted).
    static let abortGraceSeconds = 2.0

    /// Four hours of 16-bit mono 48 kHz stays well inside a WAV file's 4 GiB.
    static let longestRecordingSeconds = 4.0 * 3600

    func validate() throws {
        guard maxSeconds > 0, maxSeconds <= Self.longestRecordingSeconds else {
            throw ValidationError("--max-seconds must be more than 0 and at most \(Int(Self.longestRecordingSeconds)).")
        }
        if let stopAfterSilence, !(stopAfterSilence > 0) {
            throw ValidationError("--stop-after-silence must be more than 0 seconds.")
        }
        if output == nil, student == nil || week == nil {
            throw ValidationError("--student and --week are required, unless --output only encodes the recording.")
        }
    }

    func run() throws {
        var submission: (student: String, slot: Slot)?
        if let student, let week {
            do {
                _ = try Identifier(validating: student)
                submission = (student, try Slot(parsing: week))
            } catch {
                throw CommandLineOutput.fail(code: error.code, message: error.message(in: .gmt), exit: ExitStatus.usage)
            }
        }

        if let output {
            let configuration = try config.load()
            let stateDirectory = StateDirectory(path: configuration.stateDirectory)
            do {
                try stateDirectory.prepare()
            } catch {
                throw CommandLineOutput.fail(error)
            }
            let staged = try record(into: stateDirectory)
            defer { unlink(staged.path) }
            let processor = AudioProcessor(limits: configuration.audioLimits, encoder: configuration.encoder.settings)
            try encode(staged, to: output, processor: processor)
        } else if let submission {
            let runtime = try config.runtime()
            // Refuse before recording what the rules would refuse after it.
            if let refusal = try StagedSubmission.precheck(studentId: submission.student, slot: submission.slot,
                                                           runtime: runtime, json: json) {
                throw refusal
            }
            let staged = try record(into: runtime.stateDirectory)
            try StagedSubmission.submit(staged.path, studentId: submission.student, slot: submission.slot, origin: .capture,
                                        fileExtension: "wav", runtime: runtime, json: json)
        }
    }

    /// Records into a new WAV in `staging/` until a stop condition, drawing the meter.
    ///
    /// - Throws: `ExitCode` after printing: 74 device, 73 file, 1 aborted (nothing kept).
    private func record(into stateDirectory: StateDirectory) throws -> CaptureSummary {
        let capture: AudioCaptureDevice
        do {
            capture = try AudioCaptureDevice(name: device)
        } catch {
            throw Self.fail(error)
        }
        let staged = stateDirectory.newStagingPath(extension: "wav")
        let interrupts = InterruptCounter()
        interrupts.start()
        defer { interrupts.stop() }

        Self.writeError("recording from \"\(device)\" (48 kHz mono): Ctrl-C stops and keeps the recording, twice discards it\n")
        var meter = CaptureMeter(style: isatty(STDERR_FILENO) == 1 ? .live : .plain)
        let session = CaptureSession(device: capture, options: .init(maxSeconds: maxSeconds, stopAfterSilenceSeconds: stopAfterSilence))
        let outcome: CaptureSession.Outcome
        do {
            outcome = try session.record(to: staged, interrupts: { interrupts.count }) { level in
                if let text = meter.update(level, now: Self.monotonicSeconds()) { Self.writeError(text) }
            }
        } catch {
            if let text = meter.finish() { Self.writeError(text) }
            throw Self.fail(error)
        }
        if let text = meter.finish() { Self.writeError(text) }

        switch outcome {
        case let .aborted(seconds):
            throw Self.aborted(after: seconds)
        case let .finished(summary):
            Self.writeError(Self.stopLine(summary, maxSeconds: maxSeconds, silenceSeconds: stopAfterSilence))
            // A person who meant "abort" presses twice, but not within one 20 ms block: after
            // the first Ctrl-C the recording waits a moment before it is handed on.
            if summary.reason == .interrupted {
                Self.writeError("finishing: press Ctrl-C again within \(Int(Self.abortGraceSeconds)) s to discard this recording\n")
            }
            if interrupts.count >= 2
                || (summary.reason == .interrupted && interrupts.waitForPress(after: 1, timeout: Self.abortGraceSeconds)) {
                unlink(summary.path)
                throw Self.aborted(after: summary.durationSeconds)
            }
            return summary
        }
    }

    /// `--output`: analyse and encode with no programme rule, as `tilawa encode`.
    private func encode(_ staged: CaptureSummary, to output: String, processor: AudioProcessor) throws {
        let processed: ProcessedAudio
        do {
            processed = try processor.process(path: staged.path, encodeTo: output, policy: .always)
        } catch let rejection as AudioRejection {
            throw CommandLineOutput.fail(code: rejection.code, message: rejection.message, exit: ExitStatus.dataRejected)
        } catch let error as OpusEncoderError {
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: ExitStatus.cannotCreate)
        }
        guard let encoded = processed.encoded else {
            throw CommandLineOutput.fail(code: "encoder_failed", message: "no output was written", exit: ExitStatus.software)
        }
        let source = "alsa:\(staged.device)"
        if json {
            try CommandLineOutput.printJSON(EncodeReport(analysis: AnalysisReport(file: source, processed: processed), encoded: encoded))
        } else {
            CommandLineOutput.printRows([("device", source)] + AnalysisReport.rows(for: processed) + [
                ("output", output),
                ("size", "\(encoded.bytes) bytes"),
                ("bitrate", String(format: "%.1f kbit/s", encoded.bitrate / 1000)),
                ("output gain", String(format: "%+.2f dB", encoded.outputGainDB)),
            ])
        }
    }

    /// The line that says why and when the recording stopped.
    static func stopLine(_ summary: CaptureSummary, maxSeconds: Double, silenceSeconds: Double?) -> String {
        let why = switch summary.reason {
        case .maxDuration: "reached --max-seconds \(format(maxSeconds))"
        case .silence: "\(format(silenceSeconds ?? 0)) s of silence after speech"
        case .interrupted: "Ctrl-C"
        }
        var line = String(format: "stopped after %.1f s: ", summary.durationSeconds) + why
        if !summary.speechDetected { line += "; no speech was heard" }
        if summary.clippedBlocks > 0 { line += "; the level reached full scale (CLIP): record a little further from the microphone" }
        if summary.overruns > 0 { line += "; \(summary.overruns) overrun(s): some audio was lost" }
        return line + "\n"
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    private static func fail(_ error: CaptureError) -> ExitCode {
        CommandLineOutput.fail(code: error.code, message: error.description,
                               exit: error.isDeviceFailure ? ExitStatus.deviceError : ExitStatus.cannotCreate)
    }

    private static func aborted(after seconds: Double) -> ExitCode {
        CommandLineOutput.fail(code: "capture_aborted",
                               message: String(format: "Ctrl-C pressed twice: the recording (%.1f s) was discarded", seconds),
                               exit: abortedStatus)
    }

    private static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Seconds on the monotonic clock, for the meter's pace (the wall clock may be pinned).
    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
