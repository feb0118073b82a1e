import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa feedback import --coach ID FILE`: pairs one reply by the drop-folder file-name rules.
struct FeedbackImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Pair one coach reply with its submission, by the drop-folder file-name rules (S1042_w08.m4a).",
        discussion: "Exit status: 0 paired (and encoded), 65 the audio cannot be used, 77 it cannot be paired, 64 usage."
    )

    @Option(help: "The coach's id.")
    var coach: String

    @Argument(help: "The reply, named <student-id>_w<NN>[_anything].<ext>, <student-id>_eoc.<ext> or <student-id>_assessment.<ext>; a <same stem>.txt beside it is read as notes.")
    var file: String

    @Flag(help: "Print the reply as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func run() throws {
        guard Identifier(rawValue: coach) != nil else {
            throw CommandLineOutput.fail(code: "invalid_identifier", message: "\"\(coach)\" is not a valid coach id.", exit: ExitStatus.usage)
        }
        try CommandLineOutput.requireReadableFile(file)
        let url = URL(fileURLWithPath: file)
        let name: DropFileName
        do {
            name = try DropFileName(parsing: url.lastPathComponent)
        } catch {
            throw CommandLineOutput.fail(code: error.code, message: error.reason, exit: ExitStatus.usage)
        }
        let notes: String?
        switch ReplyNotes.read(besideFile: file, reply: name) {
        case let .success(text): notes = text
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.dataRejected)
        }
        let runtime = try config.runtime()
        let staged = runtime.stateDirectory.newStagingPath(extension: name.fileExtension)
        do {
            try FileManager.default.copyItem(atPath: file, toPath: staged)
        } catch {
            throw CommandLineOutput.fail(code: "io_error", message: "cannot copy \(file) to staging: \(error.localizedDescription)", exit: ExitStatus.cannotCreate)
        }
        let outcome: FeedbackOutcome
        do {
            outcome = try runtime.feedbackIntake.submit(
                stagedPath: staged, coachId: coach, target: .slot(student: name.studentID.rawValue, slot: name.slot), notes: notes,
                origin: .cli, fileExtension: name.fileExtension)
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .accepted(_, job):
            if let id = job.id, let claimed = try? runtime.database.claimJob(id: id, worker: EncodeJobRunner.workerIdentity, now: Date()) {
                runtime.encodeRunner.run(claimed)
            }
            guard let view = try? runtime.database.feedbackView(id: job.subjectId) else {
                throw CommandLineOutput.fail(code: "internal_error", message: "the reply disappeared", exit: ExitStatus.software)
            }
            if json {
                try CommandLineOutput.printJSON(FeedbackResource(view))
            } else {
                CommandLineOutput.printRows([("reply", view.feedback.id), ("submission", view.feedback.submissionId), ("state", view.feedback.state.rawValue)])
            }
        case let .rejected(verdict):
            let primary = verdict.primaryRejection ?? .unreadable(detail: "")
            throw CommandLineOutput.fail(code: primary.code, message: primary.message, exit: ExitStatus.dataRejected)
        case let .refused(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        }
    }
}
