import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa placement …`: placing students in a level with a coach.
struct PlacementCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "placement",
        abstract: "Place students in a level with a coach after their placement assessment.",
        subcommands: [PlacementSetCommand.self]
    )
}

/// `tilawa placement set STUDENT --level L --coach C [--semester ID] [--by COACH|ops]`.
struct PlacementSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Record a student's level and coach; the student is told (placement_ready).",
        discussion: """
            The placement is recorded on the student's enrolment in --semester (default: the \
            current one), audited with who decided (--by, a placing coach's id or "ops") and when.

            Once the enrolment has weekly or end-of-course recordings, the same level and \
            coach again changes nothing (0) and any other is refused (already_placed): a level \
            or coach change mid-semester is a back-office change to the enrolment.

            Exit status: 0 placed, 64 usage, 77 refused (unknown student, level, coach or \
            semester; the semester has closed; --by is not a placing coach; already_placed).
            """
    )

    @Argument(help: "The student's id.")
    var student: String

    @Option(help: "The level id (from program.yaml).")
    var level: String

    @Option(help: "The assigned coach's id.")
    var coach: String

    @Option(help: "The semester id (default: the student's current enrolment).")
    var semester: String?

    @Option(help: "Who decided: a placing coach's id, or ops.")
    var by: String = "ops"

    @Flag(help: "Print the enrolment as JSON on stdout.")
    var json = false

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        for (what, value) in [("student", student), ("level", level), ("coach", coach), ("--by", by)] + (semester.map { [("semester", $0)] } ?? [])
        where !Identifier.isValid(value) {
            throw ValidationError("\"\(value)\" is not a valid \(what) id (letters, digits, \"_\" or \"-\", at most 64).")
        }
    }

    func run() throws {
        let runtime = try config.runtime()
        let placer: AppDatabase.Placer = by == "ops" ? .ops : .coach(by)
        let outcome: Result<EnrolmentRecord, PlacementRefusal>
        do {
            outcome = try runtime.database.placeStudentNow(
                student, levelId: level, coachId: coach, semesterId: semester, by: placer, now: runtime.clock())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        switch outcome {
        case let .success(enrolment):
            if json {
                try CommandLineOutput.printJSON(PlacementResource(enrolment))
            } else {
                CommandLineOutput.printRows([
                    ("student", enrolment.studentId), ("semester", enrolment.semesterId), ("level", enrolment.levelId ?? ""),
                    ("coach", enrolment.coachId ?? ""), ("placed by", enrolment.placedBy ?? ""),
                ])
            }
        case let .failure(refusal):
            throw CommandLineOutput.fail(code: refusal.code, message: refusal.message, exit: ExitStatus.refusedByRule)
        }
    }
}
