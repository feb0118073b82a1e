import Foundation

/// A JSON value as SCIM bodies carry it, its type kept (`true` is not `"true"`); attribute
/// names are matched without regard to case (RFC 7643 §2.1).
enum SCIMValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SCIMValue])
    case object([String: SCIMValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([SCIMValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: SCIMValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value):
            // Counts (totalResults, startIndex) read as integers.
            if value == value.rounded(), abs(value) < 9e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// The member `name` of an object, matched without regard to case; nil for none (or not an object).
    subscript(member name: String) -> SCIMValue? {
        guard case let .object(members) = self else { return nil }
        if let exact = members[name] { return exact }
        let lowered = name.lowercased()
        return members.first { $0.key.lowercased() == lowered }?.value
    }

    /// The text of a `.string`, nil for any other value.
    var stringValue: String? { if case let .string(value) = self { value } else { nil } }
    /// The members of an `.object`, nil for any other value.
    var objectValue: [String: SCIMValue]? { if case let .object(value) = self { value } else { nil } }

    /// A count (totalResults, startIndex) as a JSON number.
    static func count(_ value: Int) -> SCIMValue { .number(Double(value)) }

    /// The value as JSON bytes, members sorted: the same value always reads the same (a HEAD
    /// and its GET say the same length).
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The JSON text of `value` (what the store keeps of `name` and `emails`).
    static func jsonText(_ value: SCIMValue) -> String? {
        (try? value.encoded()).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value a stored JSON text holds; nil when it is none.
    static func parse(_ text: String?) -> SCIMValue? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(SCIMValue.self, from: Data(text.utf8))
    }
}
