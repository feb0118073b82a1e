import Foundation

/// Where a PATCH operation, a body's member, a filter's comparison or an `attributes` item
/// points in a User (RFC 7644 §3.10 attribute notation, §3.5.2 `PATH`): `userName`,
/// `name.givenName`, `emails[type eq "work"].value`, with or without its schema's URN before it.
struct SCIMPath: Sendable, Equatable {
    enum Attribute: Sendable, Equatable {
        case id, schemas, meta
        case externalId, userName, name, displayName, emails, active
        /// The Tilawa extension's `role`.
        case role
        /// The Tilawa extension as a whole (`urn:tilawa:params:scim:schemas:extension:tilawa:2.0:User`).
        case tilawa
        /// An attribute Tilawa does not keep (`title`, `phoneNumbers`, another extension's): ignored.
        case unknown

        /// The resource's member this attribute is written under.
        var member: String? {
            switch self {
            case .id: "id"
            case .schemas: "schemas"
            case .meta: "meta"
            case .externalId: "externalId"
            case .userName: "userName"
            case .name: "name"
            case .displayName: "displayName"
            case .emails: "emails"
            case .active: "active"
            case .role, .tilawa: SCIMSchema.tilawaUser
            case .unknown: nil
            }
        }
    }

    /// One `subAttribute eq value` of a value filter (`emails[type eq "work"]`).
    struct Match: Sendable, Equatable {
        var subAttribute: String
        var value: SCIMValue
    }

    var attribute: Attribute
    /// A complex attribute's member, canonically spelt (`givenName`).
    var subAttribute: String? = nil
    /// The value filter of a multi-valued attribute, its comparisons joined by `and`.
    var filter: [Match]? = nil

    /// `name`'s members and `emails`' (RFC 7643 §4.1.1, §4.1.2), as Tilawa keeps them.
    static let nameMembers = ["formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"]
    static let emailMembers = ["value", "display", "type", "primary"]

    /// A whole path (`PATCH`'s `path`): `invalidPath` when it is not one.
    init(parsing text: String) throws {
        var reader = SCIMExpressionReader(text)
        do {
            reader.skipSpaces()
            self = try Self.read(&reader)
            reader.skipSpaces()
            guard reader.isAtEnd else { throw SCIMExpressionReader.Malformed() }
        } catch {
            throw SCIMError.invalidPath("\(Self.quoted(text)) is not an attribute path such as displayName, name.givenName or emails[type eq \"work\"].value.")
        }
    }

    init(attribute: Attribute, subAttribute: String? = nil, filter: [Match]? = nil) {
        self.attribute = attribute
        self.subAttribute = subAttribute
        self.filter = filter
    }

    /// A path at the reader: an attribute, then a value filter in brackets and a sub-attribute.
    static func read(_ reader: inout SCIMExpressionReader) throws -> SCIMPath {
        guard let head = reader.name() else { throw SCIMExpressionReader.Malformed() }
        var path = resolve(head)
        guard reader.take("[") else { return path }
        guard path.subAttribute == nil else { throw SCIMExpressionReader.Malformed() }
        var matches: [Match] = []
        repeat {
            reader.skipSpaces()
            guard let name = reader.name() else { throw SCIMExpressionReader.Malformed() }
            reader.skipSpaces()
            guard reader.name()?.lowercased() == "eq" else { throw SCIMExpressionReader.Malformed() }
            let value = try reader.value()
            matches.append(Match(subAttribute: canonicalMember(of: path.attribute, name) ?? name, value: value))
            reader.skipSpaces()
        } while reader.takeWord("and")
        guard reader.take("]") else { throw SCIMExpressionReader.Malformed() }
        path.filter = matches
        if reader.take(".") {
            guard let sub = reader.name() else { throw SCIMExpressionReader.Malformed() }
            guard let canonical = canonicalMember(of: path.attribute, sub) else { return SCIMPath(attribute: .unknown) }
            path.subAttribute = canonical
        }
        return path
    }

    /// The attribute a name (`userName`, `name.givenName`, `urn:…:User:emails`) is, without
    /// regard to case; a name of another schema, or one Tilawa does not keep, is `unknown`.
    static func resolve(_ text: String) -> SCIMPath {
        let lowered = text.lowercased()
        let tilawa = SCIMSchema.tilawaUser.lowercased(), core = SCIMSchema.user.lowercased() + ":"
        if lowered == tilawa { return SCIMPath(attribute: .tilawa) }
        if lowered.hasPrefix(tilawa + ":") {
            return String(lowered.dropFirst(tilawa.count + 1)) == "role" ? SCIMPath(attribute: .role) : SCIMPath(attribute: .unknown)
        }
        var rest = Substring(text)
        if lowered.hasPrefix(core) {
            rest = rest.dropFirst(core.count)
        } else if lowered.hasPrefix("urn:") {
            return SCIMPath(attribute: .unknown)
        }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let attribute: Attribute = switch parts.first.map({ $0.lowercased() }) ?? "" {
        case "id": .id
        case "schemas": .schemas
        case "meta": .meta
        case "externalid": .externalId
        case "username": .userName
        case "name": .name
        case "displayname": .displayName
        case "emails": .emails
        case "active": .active
        default: .unknown
        }
        guard parts.count == 2 else { return SCIMPath(attribute: attribute) }
        if attribute == .meta { return SCIMPath(attribute: .meta) }
        guard let sub = canonicalMember(of: attribute, String(parts[1])) else { return SCIMPath(attribute: .unknown) }
        return SCIMPath(attribute: attribute, subAttribute: sub)
    }

    /// `name` as `attribute`'s member is spelt (`GIVENNAME` → `givenName`), nil for none.
    static func canonicalMember(of attribute: Attribute, _ name: String) -> String? {
        let members: [String] = switch attribute {
        case .name: nameMembers
        case .emails: emailMembers
        default: []
        }
        return members.first { $0.lowercased() == name.lowercased() }
    }

    /// `text` quoted for a one-line message, cut at 80 characters.
    static func quoted(_ text: String) -> String {
        var clean = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
        if clean.count > 80 { clean = String(clean.prefix(80)) + "…" }
        return "\"\(clean)\""
    }
}

/// A `GET /Users` filter (RFC 7644 §3.4.2.2): the subset Tilawa answers, comparisons with
/// `eq` joined by `and` — `userName eq "x"`, `externalId eq "x"`, `emails[type eq "work"].value eq "x"`.
struct SCIMFilter: Sendable, Equatable {
    struct Comparison: Sendable, Equatable {
        var path: SCIMPath
        var value: SCIMValue
    }

    var comparisons: [Comparison] = []

    /// `invalidFilter` for anything else: another operator, `or`, `not`, parentheses.
    init(parsing text: String) throws {
        var reader = SCIMExpressionReader(text)
        do {
            repeat {
                reader.skipSpaces()
                let path = try SCIMPath.read(&reader)
                reader.skipSpaces()
                guard reader.name()?.lowercased() == "eq" else { throw SCIMExpressionReader.Malformed() }
                let value = try reader.value()
                comparisons.append(Comparison(path: path, value: value))
                reader.skipSpaces()
            } while reader.takeWord("and")
            guard reader.isAtEnd else { throw SCIMExpressionReader.Malformed() }
        } catch {
            throw SCIMError.invalidFilter("""
                \(SCIMPath.quoted(text)) is not a filter Tilawa answers: comparisons with eq joined by and, \
                such as userName eq "aisha@example.org" or emails[type eq "work"].value eq "aisha@example.org".
                """)
        }
    }
}

/// Reads SCIM's attribute paths and filters one character at a time.
struct SCIMExpressionReader {
    /// The text is not what was expected here (the caller says what was).
    struct Malformed: Error {}

    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    var isAtEnd: Bool { index >= characters.count }
    private var next: Character? { index < characters.count ? characters[index] : nil }

    mutating func skipSpaces() {
        while let character = next, character.isWhitespace { index += 1 }
    }

    /// A name: letters, digits and `: . _ - $` (an attribute, a URN, a keyword, a number).
    mutating func name() -> String? {
        let start = index
        while let character = next, character.isLetter || character.isNumber || ":._-$+".contains(character) { index += 1 }
        return index > start ? String(characters[start..<index]) : nil
    }

    /// Moves past `character` if it is next.
    mutating func take(_ character: Character) -> Bool {
        guard next == character else { return false }
        index += 1
        return true
    }

    /// Moves past the keyword `word` (any case) if it is next, spaces before it skipped.
    mutating func takeWord(_ word: String) -> Bool {
        let start = index
        skipSpaces()
        if let found = name(), found.lowercased() == word { return true }
        index = start
        return false
    }

    /// A comparison value: a JSON string, `true`, `false`, `null` or a number.
    mutating func value() throws -> SCIMValue {
        skipSpaces()
        guard next == "\"" else {
            guard let word = name() else { throw Malformed() }
            switch word.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default:
                guard let number = Double(word) else { throw Malformed() }
                return .number(number)
            }
        }
        let start = index
        index += 1
        var escaped = false
        var closed = false
        while let character = next, !closed {
            index += 1
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                closed = true
            }
        }
        guard closed else { throw Malformed() }
        // The literal is JSON's string syntax: JSON decodes it, escapes and all.
        let literal = String(characters[start..<index])
        guard let decoded = try? JSONDecoder().decode([String].self, from: Data("[\(literal)]".utf8)), let text = decoded.first else {
            throw Malformed()
        }
        return .string(text)
    }
}
