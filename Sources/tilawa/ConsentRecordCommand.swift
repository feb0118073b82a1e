import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa consent record --student ID --version V --given-by student|guardian [--guardian-name N]`:
/// an operator records a consent given on paper (DESIGN §16), as `PUT …/consent` would.
struct ConsentRecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a student's consent to the recording policy (a paper form).",
        discussion: """
            The same rules as PUT /v1/students/{id}/consent: a student under privacy.adult_age (by \
            their date_of_birth in students.csv) needs --given-by guardian with --guardian-name \
            (guardian_required), and with privacy.policy_version set only that version is taken \
            (policy_version_mismatch). The same consent again changes nothing; another replaces \
            the current one. Audited as consent_given, with --reason (or a note that it was a \
            paper form). The instant is now. Exit status: 0 recorded or already on record, 64 \
            usage, 77 refused (unknown or erased student, guardian_required, \
            policy_version_mismatch), 78 bad configuration.
            """
    )

    @Option(help: ArgumentHelp("The policy's version the form names.", valueName: "version"))
    var version: String

    @Option(help: ArgumentHelp("Who signed: student or guardian.", valueName: "who"))
    var givenBy: String

    @Option(help: ArgumentHelp("The guardian who signed (with --given-by guardian).", valueName: "name"))
    var guardianName: String?

    @OptionGroup var options: StudentPrivacyOptions

    /// The audit log's reason when `--reason` is not given.
    static let defaultReason = "a paper form, recorded with tilawa consent record"

    func validate() throws {
        guard ConsentTerms.isText(version) else {
            throw ValidationError("--version must be the policy's version: 1 to \(ConsentTerms.maximumTextLength) characters on one line.")
        }
        guard let giver = ConsentGiver(rawValue: givenBy) else { throw ValidationError("--given-by must be student or guardian.") }
        if let guardianName {
            guard giver == .guardian else { throw ValidationError("--guardian-name goes with --given-by guardian.") }
            guard ConsentTerms.isText(guardianName) else {
                throw ValidationError("--guardian-name must be 1 to \(ConsentTerms.maximumTextLength) characters on one line.")
            }
        }
    }

    func run() throws {
        let (runtime, recorded) = try options.perform { runtime in
            try runtime.database.recordConsentNow(
                studentId: options.student, version: version, givenBy: ConsentGiver(rawValue: givenBy) ?? .student,
                guardianName: guardianName, terms: runtime.policy.consent, timeZone: runtime.configuration.program.timeZone,
                by: options.actor, reason: options.reason ?? Self.defaultReason, now: runtime.clock())
        }
        if options.json {
            try CommandLineOutput.printJSON(ConsentSummary(recorded.consent, terms: runtime.policy.consent))
        } else {
            print("consent of \(options.student) \(recorded.created ? "recorded" : "already on record"): \(ConsentSummary.line(recorded.consent))")
        }
    }
}
