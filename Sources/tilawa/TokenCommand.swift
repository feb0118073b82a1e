import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon

/// `tilawa token …`: bearer tokens for the HTTP API.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint bearer tokens for the HTTP API.",
        subcommands: [TokenIssueCommand.self]
    )
}
