import Foundation
import TilawaStore

/// A User's attributes as Tilawa keeps them — the subset its schema publishes (`GET
/// /Schemas`), member names canonical: read from a `POST`/`PUT` body, changed by `PATCH`
/// operations, and what the store is given (`draft()`).
///
/// Attributes of other schemas (the enterprise extension) and of the core schema that Tilawa
/// does not keep (`title`, `phoneNumbers`, …) are ignored, as are the server's own (`id`,
/// `meta`, `schemas`) in a body: an identity provider sends what its mapping holds.
struct SCIMUserAttributes: Sendable, Equatable {
    var userName: String?
    var externalId: String?
    /// `name`'s members by their canonical names (`givenName`); empty: unassigned.
    var name: [String: String] = [:]
    var displayName: String?
    var emails: [SCIMEmail] = []
    var active: Bool?
    /// The Tilawa extension's `role`.
    var role: Device.Owner?

    init() {}

    /// A User resource as `POST` or `PUT` sends it (RFC 7644 §3.3, §3.5.1).
    init(resource body: SCIMValue) throws {
        guard let members = body.objectValue else {
            throw SCIMError.invalidSyntax("The body must be a User resource: a JSON object with at least a userName.")
        }
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            let path = SCIMPath.resolve(key)
            switch path.attribute {
            case .id, .schemas, .meta, .unknown: continue
            default: try apply(.replace, at: path, value)
            }
        }
        try validate()
    }

    /// The user as the store keeps it.
    init(user: SCIMUser) {
        userName = user.userName
        externalId = user.externalId
        for (key, value) in SCIMValue.parse(user.name)?.objectValue ?? [:] {
            if let text = value.stringValue { name[key] = text }
        }
        displayName = user.displayName
        emails = Self.storedEmails(user.emails)
        active = user.active
        role = user.owner
    }

    /// The stored `emails` text as emails (none when it cannot be read).
    static func storedEmails(_ text: String?) -> [SCIMEmail] {
        guard case let .array(items)? = SCIMValue.parse(text) else { return [] }
        return items.compactMap { try? SCIMEmail(json: $0) }
    }

    /// Applies one operation at `path` (RFC 7644 §3.5.2): `add` and `replace` set a simple
    /// attribute, merge into a complex one (members not named stay), add to (`add`) or replace
    /// (`replace`) a multi-valued one; `remove`, or a null value, unassigns.
    mutating func apply(_ op: SCIMPatch.Op, at path: SCIMPath, _ value: SCIMValue?) throws {
        let given: SCIMValue? = (op == .remove || value == SCIMValue.null) ? nil : value
        switch path.attribute {
        case .unknown:
            return
        case .id, .schemas, .meta:
            throw SCIMError.mutability("id, schemas and meta are the server's to write.")
        case .userName:
            guard let given else { throw SCIMError.invalidValue("userName is required: it is the subject the person signs in with.") }
            userName = try Self.subject(given)
        case .externalId:
            externalId = try Self.text(given, "externalId")
        case .displayName:
            displayName = try Self.text(given, "displayName")
        case .active:
            active = try Self.flag(given, "active")
        case .role:
            role = try Self.roleValue(given)
        case .tilawa:
            guard let given else {
                role = nil
                return
            }
            guard given.objectValue != nil else {
                throw SCIMError.invalidValue("\(SCIMSchema.tilawaUser) is an object such as {\"role\": \"student\"}.")
            }
            if let member = given[member: "role"] { role = try Self.roleValue(member) }
        case .name:
            if let sub = path.subAttribute {
                name[sub] = try Self.text(given, "name.\(sub)")
            } else if let given {
                guard let members = given.objectValue else {
                    throw SCIMError.invalidValue("name is an object such as {\"givenName\": \"Aisha\", \"familyName\": \"Rahman\"}.")
                }
                for (key, member) in members {
                    guard let canonical = SCIMPath.canonicalMember(of: .name, key) else { continue }
                    name[canonical] = try Self.text(member, "name.\(canonical)")
                }
            } else {
                name = [:]
            }
        case .emails:
            try applyToEmails(op, path, given)
        }
    }

    private mutating func applyToEmails(_ op: SCIMPatch.Op, _ path: SCIMPath, _ value: SCIMValue?) throws {
        let chosen = emails.indices.filter { index in path.filter.map { emails[index].meets($0) } ?? true }
        if let value {
            if let filter = path.filter {
                if chosen.isEmpty {
                    // A filter that names no email adds the one it describes (as Entra ID expects).
                    var email = SCIMEmail()
                    for match in filter { try email.set(match.subAttribute, match.value) }
                    try email.merge(path.subAttribute, value)
                    emails.append(email)
                } else {
                    for index in chosen { try emails[index].merge(path.subAttribute, value) }
                }
            } else if let sub = path.subAttribute {
                // `emails.value` without a filter: the primary email's, else the first's.
                if let index = emails.firstIndex(where: { $0.primary == true }) ?? emails.indices.first {
                    try emails[index].set(sub, value)
                } else {
                    var email = SCIMEmail()
                    try email.set(sub, value)
                    emails.append(email)
                }
            } else {
                let items: [SCIMValue] = if case let .array(values) = value { values } else { [value] }
                let given = try items.map { try SCIMEmail(json: $0) }
                if op == .add {
                    for email in given where !emails.contains(email) { emails.append(email) }
                } else {
                    emails = given
                }
            }
        } else if let sub = path.subAttribute {
            for index in chosen { try emails[index].set(sub, nil) }
        } else if path.filter != nil {
            emails = emails.indices.filter { !chosen.contains($0) }.map { emails[$0] }
        } else {
            emails = []
        }
        emails.removeAll { $0.isEmpty }
    }

    /// The rules every User keeps: a `userName`, at most 20 emails, one primary at most (the
    /// last one marked keeps it, RFC 7643 §2.4).
    mutating func validate() throws {
        guard userName != nil else {
            throw SCIMError.invalidValue("userName is required: the subject the person signs in with (the sub of their tokens).")
        }
        guard emails.count <= 20 else { throw SCIMError.invalidValue("A user has at most 20 emails.") }
        let primaries = emails.indices.filter { emails[$0].primary == true }
        for index in primaries.dropLast() { emails[index].primary = false }
    }

    /// The name Tilawa shows a student by: `name.formatted`, else the given and family names,
    /// else `displayName`; nil when the provider gave none.
    var personName: String? {
        let parts = [name["givenName"], name["familyName"]].compactMap { $0 }.filter { !$0.isEmpty }
        let candidates: [String?] = [name["formatted"], parts.isEmpty ? nil : parts.joined(separator: " "), displayName]
        return candidates.compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
    }

    /// What the store is given.
    func draft() throws -> SCIMUserDraft {
        guard let userName else { throw SCIMError.invalidValue("userName is required.") }
        let storedName = name.isEmpty ? nil : SCIMValue.jsonText(.object(name.mapValues(SCIMValue.string)))
        let emailsText = emails.isEmpty ? nil : SCIMValue.jsonText(.array(emails.map(\.json)))
        return SCIMUserDraft(owner: role, userName: userName, externalId: externalId, name: storedName, displayName: displayName,
                             emails: emailsText, active: active, personName: personName)
    }

    // MARK: - Values

    /// Text of at most `limit` characters on one line; nil for none (or null).
    static func text(_ value: SCIMValue?, _ attribute: String, limit: Int = 255) throws -> String? {
        guard let value, value != .null else { return nil }
        guard case let .string(text) = value, text.count <= limit,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SCIMError.invalidValue("\(attribute) must be text of at most \(limit) characters on one line.")
        }
        return text
    }

    /// A `userName`: the sign-in subject, 1–255 bytes of text on one line (as an identity
    /// provider's `sub`, DESIGN §10).
    static func subject(_ value: SCIMValue) throws -> String {
        guard case let .string(text) = value, !text.isEmpty, text.utf8.count <= 255,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SCIMError.invalidValue("userName must be 1 to 255 bytes of text on one line: the sub of the person's tokens.")
        }
        return text
    }

    /// A boolean, or the text `"true"`/`"false"` in any case (Entra ID sends `"False"`).
    static func flag(_ value: SCIMValue?, _ attribute: String) throws -> Bool? {
        switch value {
        case nil, .null?: return nil
        case let .bool(flag)?: return flag
        case let .string(text)? where ["true", "false"].contains(text.lowercased()): return text.lowercased() == "true"
        default: throw SCIMError.invalidValue("\(attribute) must be true or false.")
        }
    }

    /// The Tilawa extension's `role`: `student` or `coach`, in any case.
    static func roleValue(_ value: SCIMValue?) throws -> Device.Owner? {
        guard let value, value != .null else { return nil }
        guard let text = value.stringValue, let role = Device.Owner(rawValue: text.lowercased()) else {
            throw SCIMError.invalidValue("role must be student or coach.")
        }
        return role
    }
}
