import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon

/// `tilawa token …`: bearer tokens for the HTTP API, issued and revoked.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint bearer tokens for the HTTP API, or sign a student or a coach out everywhere.",
        subcommands: [TokenIssueCommand.self, TokenRevokeCommand.self]
    )
}
