import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore

/// `tilawa encode IN OUT.opus`: decode, analyse and encode, applying no programme rule.
struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode a recording to loudness-normalised Ogg Opus.",
        discussion: "Exit status: 0 written, 65 the input could not be decoded, 73 the output could not be written."
    )

    @Argument(help: "The recording (any format FFmpeg reads).")
    var input: String

    @Argument(help: "The Ogg Opus file to write.")
    var output: String

    @Option(help: "Target bitrate in kbit/s (VBR), as opusenc's --bitrate.")
    var bitrate: Double = 32

    @Option(help: "Encoder complexity, 0 (fastest) to 10 (best).")
    var complexity: Int = 10

    @Option(help: "Signal hint: voice, music or auto.")
    var signal: OpusEncoderSettings.Signal = .voice

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    func validate() throws {
        guard (6...510).contains(bitrate) else { throw ValidationError("--bitrate must be between 6 and 510 kbit/s.") }
        guard (0...10).contains(complexity) else { throw ValidationError("--complexity must be between 0 and 10.") }
    }

    func run() throws {
        try CommandLineOutput.requireReadableFile(input)
        var settings = OpusEncoderSettings()
        settings.bitrate = Int(bitrate * 1000)
        settings.complexity = complexity
        settings.signal = signal
        let processor = AudioProcessor(encoder: settings)
        let processed: ProcessedAudio
        do {
            processed = try processor.process(path: input, encodeTo: output, policy: .always)
        } catch let rejection as AudioRejection {
            throw CommandLineOutput.fail(code: rejection.code, message: rejection.message, exit: ExitStatus.dataRejected)
        } catch let error as OpusEncoderError {
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: ExitStatus.cannotCreate)
        }
        guard let encoded = processed.encoded else {
            throw CommandLineOutput.fail(code: "encoder_failed", message: "no output was written", exit: ExitStatus.software)
        }
        if json {
            try CommandLineOutput.printJSON(EncodeReport(analysis: AnalysisReport(file: input, processed: processed), encoded: encoded))
        } else {
            CommandLineOutput.printRows([("file", input)] + AnalysisReport.rows(for: processed) + [
                ("output", output),
                ("size", "\(encoded.bytes) bytes"),
                ("bitrate", String(format: "%.1f kbit/s", encoded.bitrate / 1000)),
                ("output gain", String(format: "%+.2f dB", encoded.outputGainDB)),
            ])
        }
    }
}

extension OpusEncoderSettings.Signal: ExpressibleByArgument {}
