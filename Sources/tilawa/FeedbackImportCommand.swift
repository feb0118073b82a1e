import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa feedback import --coach ID [--submission ID] [--result pass|retake] FILE`: pairs one
/// reply by the drop-folder file-name rules, or with the submission named by id (an older
/// semester's recording, which file names never reach).
struct FeedbackImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Pair one coach reply with its submission, by the drop-folder file-name rules (S1042_w08.m4a).",
        discussion: "Exit status: 0 paired (and encoded), 65 the audio cannot be used, 77 it cannot be paired, 64 usage."
    )

    @Option(help: "The coach's id.")
    var coach: String

    @Argument(help: "The reply, named <student-id>_w<NN>[_anything].<ext>, <student-id>_eoc_pass.<ext> / <student-id>_eoc_retake.<ext> or <student-id>_assessment.<ext>; a <same stem>.txt beside it is read as notes. With --submission any name will do.")
    var file: String

    @Option(help: "Answer this submission (by id) instead of pairing by the file name.")
    var submission: String?

    @Option(help: "The end-of-course result, pass or retake (required for an end-of-course reply unless the file name gives it).")
    var result: String?

    @Flag(help: "Print the reply as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func run() throws {
        guard Identifier(rawValue: coach) != nil else {
            throw CommandLineOutput.fail(code: "invalid_identifier", message: "\"\(coach)\" is not a valid coach id.", exit: ExitStatus.usage)
        }
        if let submission, Identifier(rawValue: submission) == nil {
            throw CommandLineOutput.fail(code: "invalid_identifier", message: "\"\(submission)\" is not a valid submission id.", exit: ExitStatus.usage)
        }
        let given = try result.map { text throws -> EOCResult in
            guard let value = EOCResult(rawValue: text.lowercased()) else {
                throw CommandLineOutput.fail(code: "invalid_result", message: "The result must be pass or retake.", exit: ExitStatus.usage)
            }
            return value
        }
        try CommandLineOutput.requireReadableFile(file)
        let url = URL(fileURLWithPath: file)
        let name: DropFileName?
        do {
            name = try DropFileName(parsing: url.lastPathComponent)
        } catch {
            // By id the name is free; `S1001_eoc.m4a --result pass` is a complete reply too.
            if submission == nil, !(error.code == "eoc_result_missing" && given != nil) {
                throw CommandLineOutput.fail(code: error.code, message: error.reason, exit: ExitStatus.usage)
            }
            name = nil
        }
        var notes: String?
        if let name {
            switch ReplyNotes.read(besideFile: file, reply: name) {
            case let .success(text): notes = text
            case let .failure(refusal):
                throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.dataRejected)
            }
        }
        let target: FeedbackTarget
        if let submission {
            target = .submission(submission)
        } else if let name {
            target = .slot(student: name.studentID.rawValue, slot: name.slot)
        } else {
            // `<student>_eoc.<ext>` with --result: the name gives the student.
            let stem = url.deletingPathExtension().lastPathComponent
            let student = stem.range(of: "_eoc", options: [.caseInsensitive, .backwards]).map { String(stem[..<$0.lowerBound]) } ?? stem
            target = .slot(student: student, slot: .eoc)
        }
        let fileExtension = name?.fileExtension ?? url.pathExtension
        let runtime = try config.runtime()
        let staged = runtime.stateDirectory.newStagingPath(extension: fileExtension)
        do {
            try FileManager.default.copyItem(atPath: file, toPath: staged)
        } catch {
            throw CommandLineOutput.fail(code: "io_error", message: "cannot copy \(file) to staging: \(error.localizedDescription)", exit: ExitStatus.cannotCreate)
        }
        let outcome: FeedbackOutcome
        do {
            outcome = try runtime.feedbackIntake.submit(
                stagedPath: staged, coachId: coach, target: target, notes: notes,
                origin: .cli, fileExtension: fileExtension, result: given ?? name?.result)
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
