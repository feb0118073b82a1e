import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa token revoke --student ID | --coach ID [--reason R] [--by NAME] [--json]`: signs a
/// student or a coach out everywhere (DESIGN §16).
struct TokenRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Sign a student or a coach out everywhere: every token issued until now is refused.",
        discussion: """
            One transaction: every token of theirs issued in or before this second is refused \
            (401 revoked_token; the daemon's own and the identity provider's alike, by iat), their \
            phones are removed from pushes, and a coach's desk sessions end with their unused \
            login links. They sign in again as usual. Recorded in the audit log as \
            sessions_revoked, with --reason (or a note that none was given). Running it again \
            only moves the instant on. Exit status: 0 done, 64 usage, 77 unknown or erased \
            student or unknown coach, 78 bad configuration.
            """
    )

    @Option(help: ArgumentHelp("Sign this student out everywhere.", valueName: "id"))
    var student: String?

    @Option(help: ArgumentHelp("Sign this coach out everywhere.", valueName: "id"))
    var coach: String?

    @Option(help: "Why (kept in the audit log).")
    var reason: String?

    @Option(help: ArgumentHelp("Who is doing it, for the audit log (default: the Unix user running the command).", valueName: "name"))
    var by: String?

    @Flag(help: "Print what was done as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    /// The audit log's reason when `--reason` is not given.
    static let defaultReason = "signed out everywhere with tilawa token revoke (no reason given)"

    func validate() throws {
        guard (student == nil) != (coach == nil) else { throw ValidationError("Give exactly one of --student ID or --coach ID.") }
        if let id = student ?? coach, !Identifier.isValid(id) {
            throw ValidationError("\"\(id)\" is not a valid \(student != nil ? "student" : "coach") id (letters, digits, \"_\" or \"-\", at most 64).")
        }
        if let reason {
            let text = reason.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= 500,
                  !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) else {
                throw ValidationError("--reason must be 1 to 500 characters of text: it is kept in the audit log.")
            }
        }
        if let by, !BackOfficeOptions.isName(by) { throw ValidationError("--by must be 1 to 64 characters with no spaces or control characters.") }
    }

    func run() throws {
        let (owner, id): (Device.Owner, String) = if let student { (.student, student) } else { (.coach, coach ?? "") }
        let runtime = try config.runtime()
        let outcome: Result<SessionRevocation, BackOfficeRefusal>
        do {
            outcome = try runtime.database.revokeSessionsNow(
                of: owner, id: id, by: by ?? BackOfficeOptions.unixUser(),
                reason: reason?.trimmingCharacters(in: .whitespacesAndNewlines) ?? Self.defaultReason, now: TokenIssueCommand.now())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(revocation):
            if json {
                try CommandLineOutput.printJSON(SessionRevocationSummary(revocation))
            } else {
                var line = "\(owner.rawValue) \(id) signed out everywhere at \(revocation.revokedAt.formatted(.iso8601)): "
                    + "\(revocation.devicesRemoved) device\(revocation.devicesRemoved == 1 ? "" : "s") removed"
                if owner == .coach {
                    line += ", \(revocation.deskSessionsEnded) desk session\(revocation.deskSessionsEnded == 1 ? "" : "s") ended"
                }
                print(line)
            }
        }
    }
}

/// `tilawa token revoke --json`: the API's answer, with whom it signed out.
private struct SessionRevocationSummary: Encodable {
    let studentId: String?
    let coachId: String?
    let revokedAt: Date
    let devicesRemoved: Int
    let deskSessionsEnded: Int

    init(_ revocation: SessionRevocation) {
        studentId = revocation.owner == .student ? revocation.id : nil
        coachId = revocation.owner == .coach ? revocation.id : nil
        revokedAt = revocation.revokedAt
        devicesRemoved = revocation.devicesRemoved
        deskSessionsEnded = revocation.deskSessionsEnded
    }
}
