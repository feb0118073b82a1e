import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa events …`: the notification outbox.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Work on the notification outbox.",
        subcommands: [EventsRedeliverCommand.self]
    )
}

/// `tilawa events redeliver [--since TIME] [--student ID]`.
struct EventsRedeliverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redeliver",
        abstract: "Turn webhook deliveries back on (after a 410) and send waiting events now; with --since, replay delivered ones too.",
        discussion: """
            Every undelivered event (of --student, when given) is made due now; with --since, events \
            delivered at or after TIME are queued again (receivers de-duplicate on the event id). \
            The running daemon picks them up at its next poll. TIME is RFC 3339 \
            (2026-11-20T18:00:00Z) or an age such as 36h or 7d.

            Exit status: 0, 64 usage.
            """
    )

    @Option(help: "Replay events that occurred at or after this time (RFC 3339, or an age such as 36h, 7d).")
    var since: String?

    @Option(help: "Only this student's events.")
    var student: String?

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        if let student, !Identifier.isValid(student) {
            throw ValidationError("\"\(student)\" is not a valid student id.")
        }
        if let since, Self.instant(since, now: Date()) == nil {
            throw ValidationError("--since must be RFC 3339 (2026-11-20T18:00:00Z) or an age such as 36h or 7d, not \"\(since)\".")
        }
    }

    func run() throws {
        let runtime = try config.runtime()
        let now = runtime.clock()
        do {
            let done = try runtime.database.redeliverEvents(since: since.flatMap { Self.instant($0, now: now) }, studentId: student, now: now)
            print("\(done.reenabled ? "deliveries turned back on; " : "")\(done.pending) waiting events due now, \(done.replayed) delivered events queued again")
        } catch {
            throw CommandLineOutput.fail(error)
        }
    }

    /// RFC 3339, or `<N>h` / `<N>d` before `now`.
    static func instant(_ text: String, now: Date) -> Date? {
        if let unit = text.last, let amount = Int(text.dropLast()), amount >= 0, unit == "h" || unit == "d" {
            return now.addingTimeInterval(-Double(amount) * (unit == "h" ? 3_600 : 86_400))
        }
        return try? Date(text, strategy: .iso8601)
    }
}
