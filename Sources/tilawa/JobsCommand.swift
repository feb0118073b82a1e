import ArgumentParser
import Foundation
import TilawaDaemon
import TilawaStore

/// `tilawa jobs run`: finishes queued encode jobs without the daemon (after a crash, say).
struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Work on the durable job queue.",
        subcommands: [JobsRunCommand.self]
    )
}
