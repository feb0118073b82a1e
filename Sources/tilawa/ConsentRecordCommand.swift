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

    @Option(help: ArgumentHelp("The student.", valueName: "id"))
    var student: String

    @Option(help: ArgumentHelp("The policy's version the form names.", valueName: "version"))
    var version: String

    @Option(help: ArgumentHelp("Who signed: student or guardian.", valueName: "who"))
    var givenBy: String

    @Option(help: ArgumentHelp("The guardian who signed (with --given-by guardian).", valueName: "name"))
    var guardianName: String?

    @Option(help: "Why, or where the form is kept (kept in the audit log).")
    var reason: String?

    @Option(help: ArgumentHelp("Who is recording it, for the audit log (default: the Unix user running the command).", valueName: "name"))
    var by: String?

    @Flag(help: "Print the consent as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    /// The audit log's reason when `--reason` is not given.
    static let defaultReason = "a paper form, recorded with tilawa consent record"

    func validate() throws {
        guard Identifier.isValid(student) else {
            throw ValidationError("\"\(student)\" is not a valid student id (letters, digits, \"_\" or \"-\", at most 64).")
        }
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
        if let reason, !ConsentTerms.isText(reason) {
            throw ValidationError("--reason must be 1 to \(ConsentTerms.maximumTextLength) characters on one line: it is kept in the audit log.")
        }
        if let by, !BackOfficeOptions.isName(by) { throw ValidationError("--by must be 1 to 64 characters with no spaces or control characters.") }
    }

    func run() throws {
        let runtime = try config.runtime()
        let terms = runtime.policy.consent
        let outcome: Result<ConsentOutcome, PrivacyRefusal>
        do {
            outcome = try runtime.database.recordConsentNow(
                studentId: student, version: version, givenBy: ConsentGiver(rawValue: givenBy) ?? .student, guardianName: guardianName,
                terms: terms, timeZone: runtime.configuration.program.timeZone, by: by ?? BackOfficeOptions.unixUser(),
                reason: reason ?? Self.defaultReason, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(recorded):
            if json {
                try CommandLineOutput.printJSON(ConsentSummary(recorded.consent, terms: terms))
            } else {
                print("consent of \(student) \(recorded.created ? "recorded" : "already on record"): \(ConsentSummary.line(recorded.consent))")
            }
        }
    }
}
