/// A link into the student app carried by every notification (DESIGN §1), e.g. `quranflow://weeks/8/feedback/<id>`.
///
/// Forms (the slot is its text form, so `eoc` and `assessment` work like weeks):
/// `quranflow://weeks/<slot>`, `quranflow://weeks/<slot>/submissions/<submission-id>`,
/// `quranflow://weeks/<slot>/feedback/<feedback-id>`; for staff, `quranflow://coach/queue`
/// (a coach's digest) and `quranflow://ops/status` (`storage_low`). Ids are `Identifier`s,
/// so no percent-encoding is ever needed. Encodes as its string.
public enum DeepLink: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The week's page.
    case week(Slot)
    /// One submission of the week.
    case submission(Slot, id: Identifier)
    /// The coach's feedback on the week.
    case feedback(Slot, id: Identifier)
    /// A coach's queue.
    case coachQueue
    /// The operations summary.
    case operationsStatus

    /// The URL scheme the app registers.
    public static let scheme = "quranflow"

    /// The link as a string, e.g. `quranflow://weeks/8/feedback/F123`.
    public var absoluteString: String {
        switch self {
        case let .week(slot): "\(Self.scheme)://weeks/\(slot)"
        case let .submission(slot, id): "\(Self.scheme)://weeks/\(slot)/submissions/\(id)"
        case let .feedback(slot, id): "\(Self.scheme)://weeks/\(slot)/feedback/\(id)"
        case .coachQueue: "\(Self.scheme)://coach/queue"
        case .operationsStatus: "\(Self.scheme)://ops/status"
        }
    }

    /// Same as `absoluteString`.
    public var description: String { absoluteString }

    /// Parses one of the forms (scheme case-insensitive); nil for anything else.
    public init?(_ text: String, weekCount: Int = 99) {
        let prefix = "\(Self.scheme)://"
        guard text.lowercased().hasPrefix(prefix) else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        if parts == ["coach", "queue"] {
            self = .coachQueue
            return
        }
        if parts == ["ops", "status"] {
            self = .operationsStatus
            return
        }
        guard parts.first == "weeks", parts.count >= 2,
              let slot = try? Slot(parsing: String(parts[1]), weekCount: weekCount)
        else { return nil }
        switch parts.count {
        case 2:
            self = .week(slot)
        case 4:
            guard let id = Identifier(rawValue: String(parts[3])) else { return nil }
            switch parts[2] {
            case "submissions": self = .submission(slot, id: id)
            case "feedback": self = .feedback(slot, id: id)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Decodes the string form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let link = DeepLink(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a quranflow:// deep link.")
        }
        self = link
    }

    /// Encodes the string form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(absoluteString)
    }
}
