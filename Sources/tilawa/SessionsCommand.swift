import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon

/// `tilawa sessions …`: the coaches' desk sessions.
struct SessionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "Manage the coaches' desk sessions.",
        subcommands: [SessionsRevokeCommand.self]
    )
}

/// `tilawa sessions revoke --coach ID`: signs the coach out of every browser.
struct SessionsRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "End every desk session of a coach and void their unused login links.",
        discussion: "The coach's next request from any browser is answered 401; a new login link signs them in again. Exit status: 0, 64 usage, 78 bad configuration."
    )

    @Option(help: ArgumentHelp("The coach to sign out.", valueName: "id"))
    var coach: String

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard Identifier.isValid(coach) else {
            throw ValidationError("\"\(coach)\" is not a valid coach id (letters, digits, \"_\" or \"-\", at most 64).")
        }
    }

    func run() throws {
        let runtime = try config.runtime()
        let ended: Int
        do {
            ended = try runtime.database.revokeDeskSessions(coachId: coach, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        print("\(ended) session\(ended == 1 ? "" : "s") of \(coach) ended")
    }
}
