import ArgumentParser

/// `tilawa consent …`: students' consents to the recording policy (DESIGN §16).
struct ConsentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consent",
        abstract: "Show, record (a paper form) or withdraw a student's consent to the recording policy.",
        subcommands: [ConsentShowCommand.self, ConsentRecordCommand.self, ConsentWithdrawCommand.self]
    )
}
