import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa announce`: an announcement from the programme, as `POST /v1/announcements` makes it;
/// `--cancel ID` cancels one not yet published.
struct AnnounceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "announce",
        abstract: "Announce something to students (a cancelled class, an outage), now or at a set time.",
        discussion: """
            Each student of the audience when it is published (enrolled in a semester that has not closed; for --semester, \
            every student of it) gets one `announcement` event. Without --at it is published now (a running daemon delivers \
            it); with --at the daemon publishes it then. Prints the announcement's id. Exit status: 0, 64 usage, 77 refused \
            (an unknown level, semester or coach; cancelling one already published), 78 bad configuration.
            """
    )

    @Option(help: "One line of at most 120 characters.") var title: String?
    @Option(help: "The text, at most 2000 characters.") var body: String?
    @Flag(help: "Every student.") var all = false
    @Option(help: ArgumentHelp("The students of a level.", valueName: "id")) var level: String?
    @Option(help: ArgumentHelp("The students of a semester.", valueName: "id")) var semester: String?
    @Option(help: ArgumentHelp("A coach's students.", valueName: "id")) var coach: String?
    @Option(help: ArgumentHelp("When to publish it (RFC 3339); now when absent.", valueName: "time")) var at: String?
    @Option(help: ArgumentHelp("Cancel an announcement not published yet, instead.", valueName: "id")) var cancel: String?

    @OptionGroup var config: ConfigurationOptions

    var audience: AnnouncementAudience? {
        if all { return .all }
        if let level { return .level(level) }
        if let semester { return .semester(semester) }
        if let coach { return .coach(coach) }
        return nil
    }

    func validate() throws {
        if let cancel {
            guard Identifier.isValid(cancel) else { throw ValidationError("\"\(cancel)\" is not a valid announcement id.") }
            return
        }
        guard let title, (1...120).contains(title.count), !title.contains("\n") else {
            throw ValidationError("--title is required: one line of 1 to 120 characters.")
        }
        guard let body, (1...2000).contains(body.count) else { throw ValidationError("--body is required: 1 to 2000 characters.") }
        let chosen = [all ? "all" : nil, level, semester, coach].compactMap { $0 }
        guard chosen.count == 1 else { throw ValidationError("Choose one audience: --all, --level ID, --semester ID or --coach ID.") }
        guard [level, semester, coach].compactMap({ $0 }).allSatisfy(Identifier.isValid) else {
            throw ValidationError("The audience's id is not a valid id (letters, digits, \"_\" or \"-\", at most 64).")
        }
        if let at, RecordedAt(parsing: at) == nil { throw ValidationError("--at must be an RFC 3339 instant, e.g. 2027-03-20T09:00:00Z.") }
    }

    func run() async throws {
        let runtime = try config.runtime()
        let now = runtime.clock()
        if let cancel {
            switch try await runtime.database.cancelAnnouncement(id: cancel, now: now) {
            case .cancelled: print("\(cancel) cancelled")
            case .alreadyPublished:
                throw CommandLineOutput.fail(code: "already_published", message: "\(cancel) was published already; its students have it.",
                                             exit: ExitStatus.refusedByRule)
            case .notFound:
                throw CommandLineOutput.fail(code: "unknown_announcement", message: "There is no announcement \(cancel).", exit: ExitStatus.refusedByRule)
            }
            return
        }
        guard let title, let body, let audience else { throw ValidationError("--title, --body and an audience are required.") }
        let publishAt = max(at.flatMap { RecordedAt(parsing: $0)?.claimed } ?? now, now)
        switch try await runtime.database.createAnnouncement(title: title, body: body, audience: audience, publishAt: publishAt,
                                                              by: "ops", now: now) {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        case let .success(record):
            if record.publishAt <= now { try await runtime.database.publishDueAnnouncements(now: now) }
            print(record.id)
        }
    }
}
