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

        let outcome: IntakeOutcome
        do {
            outcome = try runtime.intake.submit(stagedPath: staged, studentId: student, slot: slot, origin: .cli, fileExtension: fileExtension)
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .accepted(_, attempts, job):
            // Encode now, as the daemon's worker would; the job stays queued if this fails.
            let runner = runtime.encodeRunner
            if let jobId = job.id, let claimed = try? runtime.database.claimJob(id: jobId, worker: EncodeJobRunner.workerIdentity, now: Date()) {
                runner.run(claimed)
            }
            guard let submission = try? runtime.database.submission(id: job.subjectId) else {
                throw CommandLineOutput.fail(code: "internal_error", message: "the submission disappeared", exit: ExitStatus.software)
            }
            let resource = SubmissionResource(submission, attempts: attempts)
            if json {
                try CommandLineOutput.printJSON(resource)
            } else {
                CommandLineOutput.printRows(SubmissionRows.rows(for: resource))
            }
        case let .rejected(verdict, analysis):
            let primary = verdict.primaryRejection ?? .unreadable(detail: "")
            if json {
                try CommandLineOutput.printJSON(RefusalReport(code: primary.code, message: primary.message,
                                                              reasons: verdict.rejections.map(\.code), analysis: analysis))
            }
            throw CommandLineOutput.fail(code: primary.code, message: primary.message, exit: ExitStatus.dataRejected)
        case let .refused(refusal, timeZone):
            let message = refusal.message(in: timeZone)
            if json {
                try CommandLineOutput.printJSON(RefusalReport(code: refusal.code, message: message, reasons: [refusal.code], analysis: nil,
                                                              nextAttemptAt: refusal.nextAttemptAt))
            }
            throw CommandLineOutput.fail(code: refusal.code, message: message, exit: Self.exitStatus(for: refusal))
        }
    }

    static func exitStatus(for refusal: RuleRefusal) -> Int32 {
        switch refusal {
        case .attemptLimit: ExitStatus.attemptLimit
        case .invalidWeek, .invalidIdentifier: ExitStatus.usage
        default: ExitStatus.refusedByRule
        }
    }
}

/// `--json` output of a refused `ingest`.
struct RefusalReport: Encodable {
    var code: String
    var message: String
    var reasons: [String]
    var analysis: AudioAnalysis?
    var nextAttemptAt: Date?

    enum CodingKeys: String, CodingKey {
        case code, message, reasons, analysis
        case nextAttemptAt = "next_attempt_at"
    }
}

extension RuleRefusal {
    /// The instant the next attempt opens, for `attempt_limit`.
    var nextAttemptAt: Date? {
        if case let .attemptLimit(next, _, _) = self { next } else { nil }
    }
}

/// Human rows for a submission.
enum SubmissionRows {
    static func rows(for resource: SubmissionResource) -> [(String, String)] {
        let slot = resource.week.map { "week \($0)" } ?? resource.kind.rawValue
        var rows: [(String, String)] = [
            ("submission", resource.id),
            ("student", resource.studentId),
            ("for", slot + (resource.late ? " (late)" : "")),
            ("state", resource.state.rawValue),
            ("received", ISO8601DateFormatter().string(from: resource.receivedAt)),
            ("duration", String(format: "%.1f s, %.1f s of speech", resource.analysis.durationSeconds, resource.analysis.speechSeconds)),
            ("attempts", "\(resource.attempts.used) of \(resource.attempts.limit) used in the last 7 days"),
        ]
        if let next = resource.attempts.nextAttemptAt {
            rows.append(("next attempt", ISO8601DateFormatter().string(from: next)))
        }
        for warning in resource.warnings { rows.append(("warning", warning)) }
        return rows
    }
}
