/// A student, coach, submission or feedback id that is safe to use in a URL path or a file path.
///
/// The only way to get one is through validation: `[A-Za-z0-9_-]{1,64}`, ASCII only
/// (DESIGN §4: "Ids in paths are validated … never used raw in a file path").
/// Because `.` and `/` are excluded, an `Identifier` can never name `..` or escape a
/// directory, and because non-ASCII is excluded, two ids that look alike are byte-equal.
/// Decoding (`Codable`) validates too, so a stored or received id cannot bypass the rule.
public struct Identifier: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The longest id accepted, in characters (all ASCII, so also in bytes).
    public static let maximumLength = 64

    /// The validated id, exactly as given (case is preserved and significant).
    public let rawValue: String

    /// Validates `rawValue`; returns nil for anything outside `[A-Za-z0-9_-]{1,64}`.
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Validates `value`, throwing `RuleRefusal.invalidIdentifier` (code `invalid_identifier`).
    ///
    /// Use this at every boundary (HTTP path, CLI flag, roster file, drop-folder name).
    public init(validating value: String) throws(RuleRefusal) {
        guard let id = Identifier(rawValue: value) else {
            throw .invalidIdentifier(input: value)
        }
        self = id
    }

    /// Whether `value` matches `[A-Za-z0-9_-]{1,64}`.
    public static func isValid(_ value: String) -> Bool {
        // Work on UTF-8 bytes: Character-level checks such as `isLetter` or `isNumber`
        // would admit "é", "Ａ" or "١", and grapheme counting would miscount combining marks.
        let bytes = value.utf8
        guard (1...maximumLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// The id itself.
    public var description: String { rawValue }

    /// Orders ids by their bytes, so listings are stable across platforms and locales.
    public static func < (lhs: Identifier, rhs: Identifier) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    /// Decodes a single string and validates it; an invalid id is a `DecodingError.dataCorrupted`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard let id = Identifier(rawValue: value) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "Not a valid id ([A-Za-z0-9_-]{1,64})."
            )
        }
        self = id
    }

    /// Encodes the id as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
