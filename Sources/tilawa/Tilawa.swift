import ArgumentParser

/// The `tilawa` command: the daemon and the tools around it.
@main
struct Tilawa: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tilawa",
        abstract: "Receives, checks, encodes and stores weekly Quran-recitation recordings.",
        subcommands: [ServeCommand.self, AnalyzeCommand.self, AlignCommand.self, EncodeCommand.self, IngestCommand.self, CaptureCommand.self, RosterCommand.self, PlacementCommand.self, JobsCommand.self, EventsCommand.self, FeedbackCommand.self, TokenCommand.self, SessionsCommand.self, LogIdCommand.self, AnnounceCommand.self, StatusCommand.self, StudentCommand.self, CoachCommand.self, AuditCommand.self, BackupCommand.self, RestoreCommand.self, ExportCommand.self, EraseCommand.self, ErasureRequestsCommand.self, ErasureRequestCommand.self, ConsentCommand.self, RetentionCommand.self, S3Command.self, DatabaseCommand.self, ConfigCommand.self]
    )
}
