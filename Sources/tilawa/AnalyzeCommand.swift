import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore

/// `tilawa analyze FILE [--json]`: the analysis and the verdict, without storing anything.
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyse a recording and say whether it would be accepted.",
        discussion: "Exit status: 0 accepted, 65 rejected (the reason is printed on stderr)."
    )

    @Argument(help: "The recording (any format FFmpeg reads).")
    var file: String

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    func run() throws {
        try CommandLineOutput.requireReadableFile(file)
        let processor = AudioProcessor()
        let processed: ProcessedAudio
        do {
            processed = try processor.process(path: file)
        } catch let rejection as AudioRejection {
            if json { try CommandLineOutput.printJSON(AnalysisReport(file: file, rejection: rejection)) }
            throw CommandLineOutput.fail(code: rejection.code, message: rejection.message, exit: ExitStatus.dataRejected)
        }
        if json {
            try CommandLineOutput.printJSON(AnalysisReport(file: file, processed: processed))
        } else {
            CommandLineOutput.printRows([("file", file)] + AnalysisReport.rows(for: processed))
        }
        if let rejection = processed.verdict.primaryRejection {
            throw CommandLineOutput.fail(code: rejection.code, message: rejection.message, exit: ExitStatus.dataRejected)
        }
    }
}
