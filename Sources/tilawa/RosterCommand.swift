import ArgumentParser
import Foundation
import TilawaDaemon
import TilawaStore

/// `tilawa roster …`: the programme's semesters, coaches, curriculum and students.
struct RosterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roster",
        abstract: "Manage the programme: semesters, coaches, curriculum, students.",
        subcommands: [RosterImportCommand.self]
    )
}
