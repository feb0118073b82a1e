import Foundation

/// What a recording is submitted for: one week of the semester, end-of-course, or placement.
///
/// Text form (URL path, CLI `--week`, JSON): `"1"`…`"15"` (a leading zero is allowed:
/// `"08"`), `"eoc"`, `"assessment"` (the words in any case). Build one from untrusted text
/// only with `init(parsing:weekCount:)`; the `.week` case itself does not check its range,
/// `SubmissionRules.admit` does.
public enum Slot: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Week `n` of the semester, 1…`weekCount`.
    case week(Int)
    /// End-of-course assessment.
    case eoc
    /// Placement assessment.
    case assessment

    /// Parses `text`; throws `RuleRefusal.invalidWeek` (code `invalid_week`) for anything else.
    ///
    /// A week is one or two ASCII digits with value 1…`weekCount`; signs, spaces,
    /// decimals and non-ASCII digits are refused, so "+3", " 3", "1.5" and "٣" never
    /// reach the rules.
    public init(parsing text: String, weekCount: Int = 15) throws(RuleRefusal) {
        switch text.lowercased() {
        case "eoc":
            self = .eoc
            return
        case "assessment":
            self = .assessment
            return
        default:
            break
        }
        guard let week = Self.weekNumber(text), (1...max(1, weekCount)).contains(week) else {
            throw .invalidWeek(input: text, weekCount: weekCount)
        }
        self = .week(week)
    }

    /// The value of one or two ASCII digits, or nil.
    static func weekNumber<S: StringProtocol>(_ text: S) -> Int? {
        let bytes = Array(text.utf8)
        guard (1...2).contains(bytes.count),
              bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The kind stored with the submission (`week`, `eoc`, `assessment`).
    public var kind: SubmissionKind {
        switch self {
        case .week: .week
        case .eoc: .eoc
        case .assessment: .assessment
        }
    }

    /// The week number, or nil for `eoc` and `assessment` (JSON `week`: 1–15 or null).
    public var week: Int? {
        if case let .week(number) = self { number } else { nil }
    }

    /// Whether this slot exists in a semester of `weekCount` weeks.
    public func isValid(weekCount: Int) -> Bool {
        guard case let .week(number) = self else { return true }
        return (1...max(1, weekCount)).contains(number)
    }

    /// The canonical text form: `"8"`, `"eoc"`, `"assessment"` (URL path component, CLI, JSON).
    public var description: String {
        switch self {
        case let .week(number): "\(number)"
        case .eoc: "eoc"
        case .assessment: "assessment"
        }
    }

    /// Decodes the text form; the week range is not known here, so any week 1…99 is accepted.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try Slot(parsing: text, weekCount: 99)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message(in: .gmt))
        }
    }

    /// Encodes the canonical text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
