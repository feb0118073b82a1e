import ArgumentParser

/// `tilawa erasure-request …`: one student's erasure request (DESIGN §16).
struct ErasureRequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erasure-request",
        abstract: "Act on a student's erasure request (tilawa erasure-requests lists them).",
        subcommands: [ErasureRequestCancelCommand.self]
    )
}
