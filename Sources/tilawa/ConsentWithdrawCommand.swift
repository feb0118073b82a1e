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

    @OptionGroup var options: StudentPrivacyOptions

    /// The audit log's reason when `--reason` is not given.
    static let defaultReason = "withdrawn with tilawa consent withdraw (no reason given)"

    func run() throws {
        let (runtime, consent) = try options.perform { runtime in
            try runtime.database.withdrawConsentNow(studentId: options.student, by: options.actor,
                                                    reason: options.reason ?? Self.defaultReason, now: runtime.clock())
        }
        if options.json {
            try CommandLineOutput.printJSON(ConsentSummary(consent, terms: runtime.policy.consent))
        } else {
            print("consent of \(options.student) withdrawn: \(ConsentSummary.line(consent))")
        }
    }
}
