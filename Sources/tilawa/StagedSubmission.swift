import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore
import TilawaDaemon
import TilawaStore

/// The end of `tilawa ingest` and `tilawa capture`: a file already in `staging/` goes
/// through the intake, its encode job runs at once, and the result is printed — or the
/// refusal is printed and mapped to its exit code.
///
/// Exit status: 0 accepted (and encoded), 65 refused for its audio, 75 attempt limit,
/// 77 refused by a rule, 64 for an invalid week or identifier, 70/73 for store failures.
enum StagedSubmission {
    /// Submits `staged` (which the intake consumes: moved into the store or deleted).
    ///
    /// - Throws: `ExitCode` after printing the one-line failure; returns normally when accepted.
    static func submit(
        _ staged: String, studentId: String, slot: Slot, origin: SubmissionOrigin, fileExtension: String,
        runtime: TilawaRuntime, json: Bool
    ) throws {
        let outcome: IntakeOutcome
        do {
            outcome = try runtime.intake.submit(stagedPath: staged, studentId: studentId, slot: slot, origin: origin,
                                                fileExtension: fileExtension)
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
            let extras = (try? runtime.database.submissionExtras(submission)) ?? SubmissionExtras()
            let resource = SubmissionResource(submission, attempts: attempts, extras: extras)
            if json {
                try CommandLineOutput.printJSON(resource)
            } else {
                CommandLineOutput.printRows(SubmissionRows.rows(
                    for: resource, windowDays: Int((runtime.configuration.attemptWindow.length / 86_400).rounded())))
            }
        case let .rejected(verdict, analysis):
            let primary = verdict.primaryRejection ?? .unreadable(detail: "")
            if json {
                try CommandLineOutput.printJSON(RefusalReport(code: primary.code, message: primary.message,
                                                              reasons: verdict.rejections.map(\.code), analysis: analysis))
            }
            throw CommandLineOutput.fail(code: primary.code, message: primary.message, exit: ExitStatus.dataRejected)
        case let .refused(refusal, timeZone):
            throw try fail(refusal, timeZone: timeZone, json: json)
        }
    }

    /// Applies the rules without recording anything: the refusal `submit` would meet now,
    /// printed and returned as its exit code, or nil when the rules let it through.
    static func precheck(studentId: String, slot: Slot, runtime: TilawaRuntime, json: Bool) throws -> ExitCode? {
        let precheck: AppDatabase.Precheck?
        do {
            precheck = try runtime.database.precheckAdmission(studentId: studentId, slot: slot, policy: runtime.policy, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        guard let precheck else { return nil }
        return try fail(precheck.refusal, timeZone: precheck.timeZone, json: json)
    }

    /// Prints a rule refusal (`--json`: the report on stdout; always the one line on stderr).
    private static func fail(_ refusal: RuleRefusal, timeZone: TimeZone, json: Bool) throws -> ExitCode {
        let message = refusal.message(in: timeZone)
        if json {
            try CommandLineOutput.printJSON(RefusalReport(code: refusal.code, message: message, reasons: [refusal.code], analysis: nil,
                                                          nextAttemptAt: refusal.nextAttemptAt))
        }
        return CommandLineOutput.fail(code: refusal.code, message: message, exit: exitStatus(for: refusal))
    }

    /// 75 for the attempt limit, 64 for input that is not a week or an identifier, 77 otherwise.
    static func exitStatus(for refusal: RuleRefusal) -> Int32 {
        switch refusal {
        case .attemptLimit: ExitStatus.attemptLimit
        case .invalidWeek, .invalidIdentifier: ExitStatus.usage
        default: ExitStatus.refusedByRule
        }
    }
}

extension RuleRefusal {
    /// The instant the next attempt opens, for `attempt_limit`.
    var nextAttemptAt: Date? {
        if case let .attemptLimit(next, _, _) = self { next } else { nil }
    }
}
