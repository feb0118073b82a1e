import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa student …`: the back office's changes to one student (DESIGN §11).
struct StudentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "student",
        abstract: "Back-office changes to a student: extensions, attempt grants, their enrolment.",
        subcommands: [StudentExtendCommand.self, StudentGrantCommand.self, StudentEnrolmentCommand.self]
    )
}

/// `tilawa coach …`: the back office's changes to a coach.
struct CoachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coach",
        abstract: "Back-office changes to a coach: cover while they are away.",
        subcommands: [CoachCoverCommand.self]
    )
}

/// What every back-office command takes: why, who, and how to print.
struct BackOfficeOptions: ParsableArguments {
    @Option(help: "Why (kept in the audit log; required).")
    var reason: String

    @Option(help: ArgumentHelp("Who is doing it, for the audit log (default: the Unix user running the command).", valueName: "name"))
    var by: String?

    @Flag(help: "Print the audit entry as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.count <= 500,
              !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) else {
            throw ValidationError("--reason must be 1 to 500 characters of text: say why, it is kept in the audit log.")
        }
        if let by, !Self.isName(by) { throw ValidationError("--by must be 1 to 64 characters with no spaces or control characters.") }
    }

    /// The operator: `--by`, else the invoking Unix user (by uid, not `$USER`, which anyone can set), else `uid:N`.
    var actor: String { by ?? Self.unixUser() }

    /// The invoking Unix user's name, by uid, else `uid:N`.
    static func unixUser() -> String {
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name.map({ String(cString: $0) }), isName(name) { return name }
        return "uid:\(getuid())"
    }

    static func isName(_ text: String) -> Bool {
        (1...64).contains(text.count) && !text.unicodeScalars.contains { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
    }

    /// Applies `action` and prints its audit entry, or fails with the refusal's code: 77 for an
    /// unknown id or a conflict, 64 for a value out of range.
    func apply(_ action: BackOfficeAction) throws {
        let runtime = try config.runtime()
        let outcome: Result<AuditRecord, BackOfficeRefusal>
        do {
            outcome = try runtime.database.applyNow(action, by: actor, reason: reason.trimmingCharacters(in: .whitespacesAndNewlines),
                                                    policy: runtime.policy, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message,
                                         exit: refusal.kind == .invalid ? ExitStatus.usage : ExitStatus.refusedByRule)
        case let .success(record):
            if json {
                try CommandLineOutput.printJSON(AuditEntryResource(record))
            } else {
                AuditCommand.print(AuditEntryResource(record))
            }
        }
    }

    /// An RFC 3339 instant from an option.
    static func instant(_ text: String, option: String) throws -> Date {
        guard let date = RecordedAt(parsing: text)?.claimed else {
            throw ValidationError("\(option) must be an RFC 3339 instant, e.g. 2027-03-24T23:59:00-04:00.")
        }
        return date
    }

    static func identifier(_ text: String, what: String) throws {
        guard Identifier.isValid(text) else {
            throw ValidationError("\"\(text)\" is not a valid \(what) id (letters, digits, \"_\" or \"-\", at most 64).")
        }
    }
}

/// `tilawa student extend STUDENT --week 3|eoc --due-at INSTANT --reason …`.
struct StudentExtendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract: "Move a student's deadline for one week (or the end-of-course assessment); the student is told.",
        discussion: """
            The deadline moves in the student's current enrolment: the timeline, reminders, late \
            and the behind count follow it, and recordings of that week already in are late or not \
            by it. Exit status: 0 done, 64 usage or a value out of range, 77 refused (unknown \
            student, not placed, semester closed).
            """
    )

    @Argument(help: "The student's id.") var student: String
    @Option(help: "The week (1–15) or eoc.") var week: String
    @Option(name: .customLong("due-at"), help: "The new deadline, RFC 3339 (e.g. 2027-03-24T23:59:00-04:00).") var dueAt: String
    @OptionGroup var options: BackOfficeOptions

    func validate() throws {
        try BackOfficeOptions.identifier(student, what: "student")
        _ = try BackOfficeOptions.instant(dueAt, option: "--due-at")
        guard let slot = try? Slot(parsing: week, weekCount: 99), slot != .assessment else {
            throw ValidationError("--week must be a week number or eoc.")
        }
    }

    func run() throws {
        try options.apply(.extend(studentId: student, slot: try Slot(parsing: week, weekCount: 99),
                                  dueAt: try BackOfficeOptions.instant(dueAt, option: "--due-at")))
    }
}

/// `tilawa student grant STUDENT --count N --expires-at INSTANT --reason …`.
struct StudentGrantCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Give a student extra recordings, used only once their attempt window is full; the student is told.",
        discussion: """
            The earliest-expiring grant is used first; a withdrawn recording gives its grant back. \
            Exit status: 0 done, 64 usage or a value out of range (count 1–10, a future expiry \
            within a year), 77 unknown student.
            """
    )

    @Argument(help: "The student's id.") var student: String
    @Option(help: "How many recordings (1–10).") var count: Int = 1
    @Option(name: .customLong("expires-at"), help: "Until when, RFC 3339.") var expiresAt: String
    @OptionGroup var options: BackOfficeOptions

    func validate() throws {
        try BackOfficeOptions.identifier(student, what: "student")
        _ = try BackOfficeOptions.instant(expiresAt, option: "--expires-at")
    }

    func run() throws {
        try options.apply(.grant(studentId: student, count: count, expiresAt: try BackOfficeOptions.instant(expiresAt, option: "--expires-at")))
    }
}

/// `tilawa student enrolment STUDENT [--coach C] [--level L] [--state active|paused|left] --reason …`.
struct StudentEnrolmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrolment",
        abstract: "Change a student's current enrolment: coach, level, or active/paused/left; the student is told.",
        discussion: """
            Recordings keep the level and week title they were recited for; weeks done still \
            count. A paused enrolment accepts no recordings (enrolment_paused), owes no week whose \
            deadline falls in the pause and gets no reminders; a left one accepts none \
            (enrolment_left). Exit status: 0 done, 64 usage, 77 refused (unknown student, coach \
            or level; not placed; semester closed; gender_mismatch; no_change).
            """
    )

    @Argument(help: "The student's id.") var student: String
    @Option(help: "The new coach's id.") var coach: String?
    @Option(help: "The new level's id.") var level: String?
    @Option(help: "active, paused or left.") var state: String?
    @OptionGroup var options: BackOfficeOptions

    func validate() throws {
        try BackOfficeOptions.identifier(student, what: "student")
        if let coach { try BackOfficeOptions.identifier(coach, what: "coach") }
        if let level { try BackOfficeOptions.identifier(level, what: "level") }
        if let state, RuleOverrides.Standing(rawValue: state) == nil { throw ValidationError("--state must be active, paused or left.") }
        if coach == nil, level == nil, state == nil { throw ValidationError("Give at least one of --coach, --level and --state.") }
    }

    func run() throws {
        try options.apply(.changeEnrolment(studentId: student, coachId: coach, levelId: level,
                                           state: state.flatMap(RuleOverrides.Standing.init(rawValue:))))
    }
}

/// `tilawa feedback move FEEDBACK --to SUBMISSION --reason …`.
struct FeedbackMoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move a misfiled reply to the recording it answers; both students are told.",
        discussion: """
            Refused for a reply that carries an end-of-course result (feedback_has_result) and \
            onto an end-of-course recording, a withdrawn or a failed one (not_answerable). \
            Exit status: 0 moved, 64 usage, 77 refused.
            """
    )

    @Argument(help: "The reply's id.") var feedback: String
    @Option(help: "The recording it belongs to.") var to: String
    @OptionGroup var options: BackOfficeOptions

    func validate() throws {
        try BackOfficeOptions.identifier(feedback, what: "reply")
        try BackOfficeOptions.identifier(to, what: "recording")
    }

    func run() throws {
        try options.apply(.moveFeedback(feedbackId: feedback, submissionId: to))
    }
}

/// `tilawa coach cover COACH --covering-coach C2 --until INSTANT --reason …`.
struct CoachCoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cover",
        abstract: "Hand a coach's open work to another coach until an instant (an instant now or past ends the cover).",
        discussion: """
            The covering coach gets the covered coach's queue, their events and their drop-folder \
            pairing; the covered coach keeps read access. Exit status: 0 done, 64 usage or a value \
            out of range, 77 refused (unknown coach, gender_mismatch, no_cover to end).
            """
    )

    @Argument(help: "The coach who is away.") var coach: String
    @Option(name: .customLong("covering-coach"), help: "The coach who covers.") var coveringCoach: String
    @Option(help: "Until when, RFC 3339.") var until: String
    @OptionGroup var options: BackOfficeOptions

    func validate() throws {
        try BackOfficeOptions.identifier(coach, what: "coach")
        try BackOfficeOptions.identifier(coveringCoach, what: "coach")
        _ = try BackOfficeOptions.instant(until, option: "--until")
    }

    func run() throws {
        try options.apply(.cover(coachId: coach, coveringCoachId: coveringCoach, until: try BackOfficeOptions.instant(until, option: "--until")))
    }
}

/// `tilawa audit [--student ID] [--coach ID] [--since T] [--before T] [--limit N] [--json]`.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Who did what, when and why: the back office's actions and the placements and enrolment changes, newest first.",
        discussion: "Exit status: 0 printed, 64 usage, 78 configuration."
    )

    @Option(help: "Only entries about this student.") var student: String?
    @Option(help: "Only entries naming this coach.") var coach: String?
    @Option(help: "At or after this instant (RFC 3339).") var since: String?
    @Option(help: "Before this instant (RFC 3339).") var before: String?
    @Option(help: "At most this many (1–200).") var limit: Int = 50
    @Flag(help: "Print JSON on stdout.") var json = false
    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        if let student { try BackOfficeOptions.identifier(student, what: "student") }
        if let coach { try BackOfficeOptions.identifier(coach, what: "coach") }
        if let since { _ = try BackOfficeOptions.instant(since, option: "--since") }
        if let before { _ = try BackOfficeOptions.instant(before, option: "--before") }
        guard (1...200).contains(limit) else { throw ValidationError("--limit must be from 1 to 200.") }
    }

    func run() throws {
        let runtime = try config.runtime()
        let filter = AuditFilter(studentId: student, coachId: coach,
                                 since: try since.map { try BackOfficeOptions.instant($0, option: "--since") },
                                 before: try before.map { try BackOfficeOptions.instant($0, option: "--before") })
        let page: AuditPage
        do {
            page = try runtime.database.auditNow(filter, after: nil, limit: limit)
        } catch {
            throw CommandLineOutput.fail(error)
        }
        let entries = page.entries.map(AuditEntryResource.init)
        if json { return try CommandLineOutput.printJSON(entries) }
        for entry in entries { Self.print(entry) }
    }

    /// One entry as a line: instant, actor, action, who, reason, and what changed.
    static func print(_ entry: AuditEntryResource) {
        Swift.print(entry.line)
    }
}
