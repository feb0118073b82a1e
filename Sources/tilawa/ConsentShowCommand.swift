import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa consent show --student ID [--json]`: the student's consents and whether one is required.
struct ConsentShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a student's consent to the recording policy, its history, and whether one is required.",
        discussion: """
            Whether privacy.require_consent asks for one (and the policy's URL and version), the \
            current consent — version, who gave it (a guardian by name), when, and whether it \
            counts under privacy.policy_version — and every earlier one, withdrawn or replaced. \
            Exit status: 0, 64 usage, 77 unknown or erased student, 78 bad configuration.
            """
    )

    @Option(help: ArgumentHelp("The student.", valueName: "id"))
    var student: String

    @Flag(help: "Print the terms and every consent as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard Identifier.isValid(student) else {
            throw ValidationError("\"\(student)\" is not a valid student id (letters, digits, \"_\" or \"-\", at most 64).")
        }
    }

    func run() throws {
        let runtime = try config.runtime()
        let terms = runtime.policy.consent
        let outcome: Result<[ConsentRecord], PrivacyRefusal>
        do {
            outcome = try runtime.database.consentsNow(studentId: student)
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(consents):
            let current = consents.last(where: \.isCurrent)
            if json {
                try CommandLineOutput.printJSON(ConsentHistory(studentId: student, terms: terms, current: current, consents: consents))
                return
            }
            let required = terms.required
                ? "yes: \(terms.policyURL ?? "")" + (terms.policyVersion.map { " (version \($0))" } ?? "")
                : "no (privacy.require_consent is false)"
            var rows = [("student", student), ("required", required)]
            if let current {
                rows.append(("current", ConsentSummary.line(current) + (terms.counts(version: current.version) ? "" : "; does not count: not the policy's version")))
            } else {
                rows.append(("current", "none"))
            }
            for earlier in consents where !earlier.isCurrent {
                rows.append(("earlier", ConsentSummary.line(earlier)))
            }
            CommandLineOutput.printRows(rows)
        }
    }
}

/// `tilawa consent show --json`: the terms, the current consent (null when none) and every consent, oldest first.
private struct ConsentHistory: Encodable {
    let studentId: String
    let required: Bool
    let policyUrl: String?
    let policyVersion: String?
    let current: ConsentSummary?
    let consents: [ConsentSummary]

    init(studentId: String, terms: ConsentTerms, current: ConsentRecord?, consents: [ConsentRecord]) {
        self.studentId = studentId
        required = terms.required
        policyUrl = terms.policyURL
        policyVersion = terms.policyVersion
        self.current = current.map { ConsentSummary($0, terms: terms) }
        self.consents = consents.map { ConsentSummary($0, terms: terms) }
    }

    enum CodingKeys: String, CodingKey { case studentId, required, policyUrl, policyVersion, current, consents }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(required, forKey: .required)
        try container.encode(policyUrl, forKey: .policyUrl)
        try container.encode(policyVersion, forKey: .policyVersion)
        try container.encode(current, forKey: .current)
        try container.encode(consents, forKey: .consents)
    }
}
