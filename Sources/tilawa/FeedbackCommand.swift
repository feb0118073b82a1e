import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa feedback …`: coach replies from the command line.
struct FeedbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feedback",
        abstract: "Coach replies.",
        subcommands: [FeedbackImportCommand.self, FeedbackCommentCommand.self, FeedbackMoveCommand.self]
    )
}
