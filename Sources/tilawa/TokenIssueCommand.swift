import ArgumentParser
import Foundation
import TilawaCore
import TilawaDaemon

/// `tilawa token issue --student ID | --coach ID | --ops NAME [--ttl 1h]`: prints one signed token.
struct TokenIssueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Print a signed token (HS256, the configured key) for a student, a coach or operations.",
        discussion: """
            The token alone is printed on stdout, so TOKEN=$(tilawa token issue --student S1001) works. \
            With --coach ID --link, a one-time login link to the coach's desk is printed instead \
            (<desk.public_url>/desk/login?token=…, 15 minutes, one use; exit 77 for an unknown coach). \
            The id is checked for its syntax only: a token may be issued before the roster is imported. \
            When the key file is missing and auth.jwt_key_file is not set, a new key is created in the \
            state directory. Exit status: 0 printed, 64 usage, 78 bad configuration or key file.
            """
    )

    @Option(help: ArgumentHelp("Issue for this student.", valueName: "id"))
    var student: String?

    @Option(help: ArgumentHelp("Issue for this coach.", valueName: "id"))
    var coach: String?

    @Option(help: ArgumentHelp(
        "Issue for operations, naming the operator (the token's subject; the audit log's \"who\").", valueName: "name"))
    var ops: String?

    @Flag(help: "With --coach: print a one-time login link to the coach's desk (15 minutes, one use) instead of a token.")
    var link = false

    @Option(help: ArgumentHelp(
        "Lifetime: 90s, 15m, 1h, 7d or seconds, from 60s to 365d (default: auth.default_token_ttl_seconds).",
        valueName: "duration"))
    var ttl: String?

    @OptionGroup var config: ConfigurationOptions

    func validate() throws {
        let chosen = [student != nil, coach != nil, ops != nil].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("Give exactly one of --student ID, --coach ID or --ops NAME.") }
        if let id = student ?? coach ?? ops, !Identifier.isValid(id) {
            throw ValidationError(RuleRefusal.invalidIdentifier(input: id).message(in: .gmt))
        }
        if let ttl { _ = try Self.lifetime(ttl) }
        if link, coach == nil { throw ValidationError("--link makes a login link to the coach's desk: give it with --coach ID.") }
        if link, ttl != nil { throw ValidationError("A login link lasts 15 minutes; --ttl does not apply to --link.") }
    }

    func run() async throws {
        if link, let coach { return try await printLink(coach: coach) }
        let configuration = try config.load()
        let lifetime = try ttl.map(Self.lifetime) ?? configuration.auth.defaultTokenTTL
        let (subject, role): (String, Role) =
            if let student { (student, .student) } else if let coach { (coach, .coach) } else { (ops ?? "ops", .ops) }
        let authority: TokenAuthority
        do {
            authority = try await TokenAuthority(configuration: configuration)
        } catch {
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: ExitStatus.configuration)
        }
        do {
            print(try await authority.issue(subject: subject, role: role, ttl: lifetime, now: Self.now()))
        } catch {
            throw CommandLineOutput.fail(error)
        }
    }

    /// When a token or link is issued: now — or, in a debug build under `TILAWA_TEST_CLOCK`,
    /// the test clock's programme time, so a test's child daemon living at another date
    /// accepts it (a release build ignores the variable, as `serve` does).
    static func now() -> Date {
        #if DEBUG
        AcceleratedClock(environment: ProcessInfo.processInfo.environment)?.now() ?? Date()
        #else
        Date()
        #endif
    }

    /// `--coach ID --link`: the link alone on stdout; exit 77 for a coach not in the programme.
    private func printLink(coach: String) async throws {
        let runtime = try config.runtime()
        let issued: (url: String, expiresAt: Date)?
        do {
            issued = try await LoginLinks(runtime: runtime).issue(coachId: coach, now: Self.now())
        } catch {
            throw CommandLineOutput.fail(error)
        }
        guard let issued else {
            throw CommandLineOutput.fail(code: "unknown_coach", message: "No coach \(coach) in the programme; import the roster first.",
                                         exit: ExitStatus.refusedByRule)
        }
        print(issued.url)
    }

    /// The seconds of a `--ttl` value, or a usage error.
    private static func lifetime(_ text: String) throws -> TimeInterval {
        guard let seconds = TokenLifetime.parse(text) else {
            throw ValidationError("--ttl \(String(reflecting: text).prefix(82)) is not a duration: use 90s, 15m, 1h, 7d or seconds.")
        }
        guard TokenLifetime.bounds.contains(seconds) else {
            throw ValidationError("--ttl \(text) is out of range: use 60s to 365d.")
        }
        return seconds
    }
}
