import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// What `tilawa consent record|withdraw` and `tilawa erasure-request cancel` share: the
/// student, the audit log's reason and operator, `--json`, the configuration, and how a change
/// is run and refused (DESIGN §16).
struct StudentPrivacyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The student.", valueName: "id"))
    var student: String

    @Option(help: "Why (kept in the audit log).")
    var reason: String?

    @Option(help: ArgumentHelp("Who is doing it, for the audit log (default: the Unix user running the command).", valueName: "name"))
    var by: String?

    @Flag(help: "Print what was recorded as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard Identifier.isValid(student) else {
            throw ValidationError("\"\(student)\" is not a valid student id (letters, digits, \"_\" or \"-\", at most 64).")
        }
        if let reason, !ConsentTerms.isText(reason) {
            throw ValidationError("--reason must be 1 to \(ConsentTerms.maximumTextLength) characters on one line: it is kept in the audit log.")
        }
        if let by, !BackOfficeOptions.isName(by) { throw ValidationError("--by must be 1 to 64 characters with no spaces or control characters.") }
    }

    /// The operator: `--by`, else the invoking Unix user.
    var actor: String { by ?? BackOfficeOptions.unixUser() }

    /// Runs `change` with the configured runtime; a store failure fails as every command's
    /// does, a refusal with its code and exit 77.
    func perform<Value>(_ change: (TilawaRuntime) throws -> Result<Value, PrivacyRefusal>) throws -> (runtime: TilawaRuntime, value: Value) {
        let runtime = try config.runtime()
        let outcome: Result<Value, PrivacyRefusal>
        do {
            outcome = try change(runtime)
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(value):
            return (runtime, value)
        }
    }
}
