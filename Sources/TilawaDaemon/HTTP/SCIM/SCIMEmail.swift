import Foundation

/// One of a User's `emails` (RFC 7643 §4.1.2): `value`, `display`, `type`, `primary`.
struct SCIMEmail: Sendable, Equatable {
    var value: String?
    var display: String?
    var type: String?
    var primary: Bool?

    init() {}

    /// From a JSON object; members Tilawa does not keep are ignored.
    init(json: SCIMValue) throws {
        guard let members = json.objectValue else {
            throw SCIMError.invalidValue("Each of emails is an object such as {\"value\": \"aisha@example.org\", \"type\": \"work\"}.")
        }
        for (key, member) in members { try set(key, member) }
    }

    var isEmpty: Bool { value == nil && display == nil && type == nil && primary == nil }

    /// Sets the member `name` (any case), or unassigns it with nil or null.
    mutating func set(_ name: String, _ member: SCIMValue?) throws {
        switch name.lowercased() {
        case "value": value = try SCIMUserAttributes.text(member, "emails.value", limit: 254)
        case "display": display = try SCIMUserAttributes.text(member, "emails.display")
        case "type": type = try SCIMUserAttributes.text(member, "emails.type", limit: 64)
        case "primary": primary = try SCIMUserAttributes.flag(member, "emails.primary")
        default: break
        }
    }

    /// Sets `sub` to `member`, or without `sub` each member of the object `member`.
    mutating func merge(_ sub: String?, _ member: SCIMValue) throws {
        if let sub {
            try set(sub, member)
            return
        }
        guard let members = member.objectValue else {
            throw SCIMError.invalidValue("An email is an object such as {\"value\": \"aisha@example.org\", \"type\": \"work\"}.")
        }
        for (key, value) in members { try set(key, value) }
    }

    /// The member `name` (any case), nil when unassigned.
    func member(_ name: String) -> SCIMValue? {
        switch name.lowercased() {
        case "value": return value.map(SCIMValue.string)
        case "display": return display.map(SCIMValue.string)
        case "type": return type.map(SCIMValue.string)
        case "primary": return primary.map(SCIMValue.bool)
        default: return nil
        }
    }

    /// Whether this email meets every comparison of a value filter (text without regard to case:
    /// `caseExact` is false for all of them).
    func meets(_ filter: [SCIMPath.Match]) -> Bool {
        filter.allSatisfy { match in
            guard let mine = member(match.subAttribute) else { return false }
            if case let .string(one) = mine, case let .string(other) = match.value { return one.lowercased() == other.lowercased() }
            return mine == match.value
        }
    }

    var json: SCIMValue {
        var members: [String: SCIMValue] = [:]
        for name in SCIMPath.emailMembers {
            if let value = member(name) { members[name] = value }
        }
        return .object(members)
    }
}
