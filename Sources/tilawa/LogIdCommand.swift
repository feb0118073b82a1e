import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon
import TilawaStore

/// `tilawa log-id --student ID | --coach ID | --subject SUB | --person ID`: the token the log
/// names someone by (`log.ids: pseudonym`), so that an operator can find their lines.
struct LogIdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log-id",
        abstract: "Print the pseudonym the log names a student, a coach or a sign-in subject by.",
        discussion: """
            With log.ids: pseudonym (the default) the log names a student s_ and 12 hex digits, \
            a coach c_…, an identity provider's subject u_…, and a SCIM user, whose role a path \
            does not say, p_…: an HMAC of the id under the installation's key, which is kept in \
            its database (made the first time it is needed), so every node's log names one \
            person alike. This prints the token, to look for one person's lines: \
            grep -F "$(tilawa log-id --student S1042)" … It prints it with log.ids: clear too \
            (for the lines logged before), saying on stderr that the log now has ids as they are. \
            Exit status: 0 printed, 64 usage, 78 bad configuration.
            """
    )

    @Option(help: ArgumentHelp("A student's id.", valueName: "id"))
    var student: String?

    @Option(help: ArgumentHelp("A coach's id.", valueName: "id"))
    var coach: String?

    @Option(help: ArgumentHelp("An identity provider's subject (its `sub`).", valueName: "sub"))
    var subject: String?

    @Option(help: ArgumentHelp("A student's or a coach's id as a SCIM path names it (`p_…`).", valueName: "id"))
    var person: String?

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        guard [student, coach, subject, person].compactMap({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of --student ID, --coach ID, --subject SUB or --person ID.")
        }
        for id in [student, coach, person].compactMap({ $0 }) where !Identifier.isValid(id) {
            throw ValidationError(RuleRefusal.invalidIdentifier(input: id).message(in: .gmt))
        }
        if let subject, subject.isEmpty || subject.utf8.count > 255 || subject.contains(where: \.isNewline) {
            throw ValidationError("--subject is the provider's sub: one line of 1 to 255 characters.")
        }
    }

    func run() throws {
        let runtime = try config.runtime()
        let key: [UInt8]
        do {
            key = try runtime.database.logPseudonymKey(now: Date())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        if runtime.configuration.logIds == .clear {
            CommandLineOutput.warn("log.ids is clear: the log names people by their ids now; this is the pseudonym of lines logged with log.ids: pseudonym")
        }
        let names = LogPseudonyms(key: key)
        if let student { print(names.student(student)) }
        if let coach { print(names.coach(coach)) }
        if let subject { print(names.subject(subject)) }
        if let person { print(names.person(person)) }
    }
}
