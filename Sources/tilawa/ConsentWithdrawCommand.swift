import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa consent withdraw --student ID [--reason R] [--by NAME] [--json]`: withdraws the
/// student's current consent (DESIGN §16), as `DELETE …/consent` would.
struct ConsentWithdrawCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "withdraw",
        abstract: "Withdraw a student's consent to the recording policy.",
        discussion: """
            The consent stays as history, closed now; with privacy.require_consent the student's \
            uploads are refused (consent_required) until they consent again. Audited as \
            consent_withdrawn. Exit status: 0, 64 usage, 77 unknown or erased student or no \
            consent (no_consent), 78 bad configuration.
            """
    )

    @Option(help: ArgumentHelp("The student.", valueName: "id"))
    var student: String

    @Option(help: "Why (kept in the audit log).")
    var reason: String?

    @Option(help: ArgumentHelp("Who is doing it, for the audit log (default: the Unix user running the command).", valueName: "name"))
    var by: String?

    @Flag(help: "Print the withdrawn consent as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    /// The audit log's reason when `--reason` is not given.
    static let defaultReason = "withdrawn with tilawa consent withdraw (no reason given)"

    func validate() throws {
        guard Identifier.isValid(student) else {
            throw ValidationError("\"\(student)\" is not a valid student id (letters, digits, \"_\" or \"-\", at most 64).")
        }
        if let reason, !ConsentTerms.isText(reason) {
            throw ValidationError("--reason must be 1 to \(ConsentTerms.maximumTextLength) characters on one line: it is kept in the audit log.")
        }
        if let by, !BackOfficeOptions.isName(by) { throw ValidationError("--by must be 1 to 64 characters with no spaces or control characters.") }
    }

    func run() throws {
        let runtime = try config.runtime()
        let outcome: Result<ConsentRecord, PrivacyRefusal>
        do {
            outcome = try runtime.database.withdrawConsentNow(studentId: student, by: by ?? BackOfficeOptions.unixUser(),
                                                              reason: reason ?? Self.defaultReason, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(consent):
            if json {
                try CommandLineOutput.printJSON(ConsentSummary(consent, terms: runtime.policy.consent))
            } else {
                print("consent of \(student) withdrawn: \(ConsentSummary.line(consent))")
            }
        }
    }
}
