import Crypto
import Foundation
import TilawaStore

/// How the log names people (`log.ids`): a student, a coach or an identity provider's subject
/// as a keyed pseudonym, or — with `log.ids: clear` — as the id itself.
///
/// A pseudonym is HMAC-SHA256, under the installation's key (`AppDatabase.logPseudonymKey`),
/// of the id with its kind (`student:S1001`, so a student and a coach of the same id differ),
/// shortened to a token: `s_` and the first 12 hex digits for a student (`s_3f9a0c1d2e4b`),
/// `c_` for a coach, `u_` for a subject, `p_` for an id whose role the line cannot know (a
/// SCIM user's). Every node of the installation shares the key, so one person has one token
/// in every node's log; `tilawa log-id` prints it for an operator looking for their lines.
/// Without the key, which never leaves the database, a token says nothing about the id.
///
/// An operator (`ops:amina`) is named as they are: staff act under their own name, and the
/// audit log names them too.
public struct LogPseudonyms: Sendable {
    /// The HMAC key; nil: ids are logged as they are.
    private let key: SymmetricKey?

    /// Pseudonyms under `key` (the installation's 32 bytes).
    public init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    private init(clear: Void) {
        key = nil
    }

    /// Ids as they are (`log.ids: clear`).
    public static let clear = LogPseudonyms(clear: ())

    /// Pseudonyms under a key of this process alone, for a part built without the
    /// installation's: no id is logged, but a token matches no other process's.
    public static let ephemeral = LogPseudonyms(key: (0..<AppDatabase.logKeyLength).map { _ in UInt8.random(in: .min ... .max) })

    /// Whether ids are logged as they are.
    public var isClear: Bool { key == nil }

    /// The pseudonyms `mode` asks for: under the installation's key, read from `database` (and
    /// made there the first time), or none for `clear` (the database is not asked).
    public static func configured(_ mode: LogIdentifiers, database: AppDatabase, now: Date) throws -> LogPseudonyms {
        switch mode {
        case .clear: return .clear
        case .pseudonym: return LogPseudonyms(key: try database.logPseudonymKey(now: now))
        }
    }

    /// A student's id as the log shows it: `s_3f9a0c1d2e4b`.
    public func student(_ id: String) -> String { token("s", domain: "student", id) }

    /// A coach's id as the log shows it: `c_…`.
    public func coach(_ id: String) -> String { token("c", domain: "coach", id) }

    /// An identity provider's `sub` as the log shows it: `u_…`.
    public func subject(_ subject: String) -> String { token("u", domain: "subject", subject) }

    /// The id of a student or a coach, which of the two unknown (a SCIM user's path): `p_…`.
    public func person(_ id: String) -> String { token("p", domain: "person", id) }

    /// A student's or a coach's id.
    public func owner(_ owner: Device.Owner, _ id: String) -> String {
        switch owner {
        case .student: student(id)
        case .coach: coach(id)
        }
    }

    /// `role:subject` as the log shows a caller: `student:s_…`, `coach:c_…`, `ops:amina`.
    public func principal(_ principal: Principal) -> String {
        switch principal.role {
        case .student: "student:" + student(principal.subject)
        case .coach: "coach:" + coach(principal.subject)
        case .ops: principal.description
        }
    }

    /// `kind:id` with the id as the log shows it (`student:S1001` → `student:s_…`, an event's
    /// delivery queue, an owner); anything else (`ops`) as it is.
    public func tagged(_ text: String) -> String {
        if text.hasPrefix("student:") { return "student:" + student(String(text.dropFirst("student:".count))) }
        if text.hasPrefix("coach:") { return "coach:" + coach(String(text.dropFirst("coach:".count))) }
        return text
    }

    /// `prefix_` and the first 12 hex digits (48 bits) of HMAC-SHA256(key, "domain:value"):
    /// short enough to read, long enough that no two of a programme's people share one.
    private func token(_ prefix: String, domain: String, _ value: String) -> String {
        guard let key else { return value }
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(domain):\(value)".utf8), using: key)
        return prefix + "_" + code.prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}
