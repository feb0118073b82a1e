import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa ingest --student ID --week N|eoc|assessment FILE`: a file through the same
/// pipeline and rules as an upload.
struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Submit a recording for a student, through the same checks and rules as an upload.",
        discussion: """
            Exit status: 0 accepted (and encoded), 65 refused for its audio, 75 attempt limit \
            (the message says when the next attempt opens), 77 refused by a rule (week locked, \
            not eligible, unknown student, semester closed), 64 usage, 66 no such file.
            """
    )

    @Option(help: "The student's id.")
    var student: String

    @Option(help: "The week (1-15), eoc or assessment.")
    var week: String

    @Argument(help: "The recording.")
    var file: String

    @Flag(help: "Print the submission as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func run() throws {
        let slot: Slot
        do {
            _ = try Identifier(validating: student)
            slot = try Slot(parsing: week)
        } catch {
            throw CommandLineOutput.fail(code: error.code, message: error.message(in: .gmt), exit: ExitStatus.usage)
        }
        try CommandLineOutput.requireReadableFile(file)
        let runtime = try config.runtime()

        // The user's file stays where it is: the pipeline consumes a copy in staging/.
        let fileExtension = URL(fileURLWithPath: file).pathExtension
        let staged = runtime.stateDirectory.newStagingPath(extension: fileExtension)
        do {
            try FileManager.default.copyItem(atPath: file, toPath: staged)
        } catch {
            throw CommandLineOutput.fail(code: "io_error", message: "cannot copy \(file) to staging: \(error.localizedDescription)", exit: ExitStatus.cannotCreate)
        }

        try StagedSubmission.submit(staged, studentId: student, slot: slot, origin: .cli, fileExtension: fileExtension,
                                    runtime: runtime, json: json)
    }
}
