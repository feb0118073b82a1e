import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa erasure-request cancel --student ID [--reason R] [--by NAME] [--json]`: takes back a
/// student's pending erasure request, as `DELETE …/erasure-request` would.
struct ErasureRequestCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a student's pending erasure request.",
        discussion: """
            The request stays as history, cancelled now; the student is not erased and may record \
            again. Audited as erasure_request_cancelled. Exit status: 0, 64 usage, 77 unknown or \
            erased student or no pending request (no_erasure_request), 78 bad configuration.
            """
    )

    @Option(help: ArgumentHelp("The student.", valueName: "id"))
    var student: String

    @Option(help: "Why (kept in the audit log).")
    var reason: String?

    @Option(help: ArgumentHelp("Who is doing it, for the audit log (default: the Unix user running the command).", valueName: "name"))
    var by: String?

    @Flag(help: "Print the cancelled request as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    /// The audit log's reason when `--reason` is not given.
    static let defaultReason = "cancelled with tilawa erasure-request cancel (no reason given)"

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
        let outcome: Result<ErasureRequestRecord, PrivacyRefusal>
        do {
            outcome = try runtime.database.cancelErasureRequestNow(studentId: student, by: by ?? BackOfficeOptions.unixUser(),
                                                                   reason: reason ?? Self.defaultReason, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(request):
            if json {
                try CommandLineOutput.printJSON(ErasureRequestSummary(request))
            } else {
                print("erasure request of \(student) (asked \(request.requestedAt.formatted(.iso8601))) cancelled")
            }
        }
    }
}
