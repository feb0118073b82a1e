import Foundation
import TilawaStore

/// A provisioned user as SCIM reads it (RFC 7643 §4.1): what the provider wrote, with its
/// `id` (the student's or coach's), the Tilawa extension's `role`, and `meta` — `version`
/// `W/"n"`, the ETag the `If-Match` of a change is checked against.
enum SCIMUserResource {
    static func resource(_ user: SCIMUser, base: String) -> SCIMValue {
        let attributes = SCIMUserAttributes(user: user)
        var members: [String: SCIMValue] = [
            "schemas": .array([.string(SCIMSchema.user), .string(SCIMSchema.tilawaUser)]),
            "id": .string(user.id),
            "userName": .string(user.userName),
            SCIMSchema.tilawaUser: .object(["role": .string(user.owner.rawValue)]),
            "meta": .object([
                "resourceType": .string("User"),
                "created": .string(user.createdAt.formatted(.iso8601)),
                "lastModified": .string(user.lastModified.formatted(.iso8601)),
                "location": .string(base + "/Users/" + user.id),
                "version": .string(etag(user.version)),
            ]),
        ]
        if let externalId = user.externalId { members["externalId"] = .string(externalId) }
        if !attributes.name.isEmpty { members["name"] = .object(attributes.name.mapValues(SCIMValue.string)) }
        if let displayName = user.displayName { members["displayName"] = .string(displayName) }
        if !attributes.emails.isEmpty { members["emails"] = .array(attributes.emails.map(\.json)) }
        if let active = user.active { members["active"] = .bool(active) }
        return .object(members)
    }

    /// The weak ETag of a version: `W/"3"`.
    static func etag(_ version: Int) -> String { "W/\"\(version)\"" }

    /// What a resource's members are narrowed to: the whole member, or some of its sub-attributes.
    enum Selection: Equatable {
        case whole
        case members(Set<String>)
    }

    /// `resource` as `attributes` or `excludedAttributes` ask (RFC 7644 §3.4.2.5, comma-separated
    /// attribute paths); `schemas` and `id` are always returned.
    static func projected(_ resource: SCIMValue, attributes: String?, excluded: String?) -> SCIMValue {
        guard case var .object(members) = resource else { return resource }
        if let attributes, !attributes.trimmingCharacters(in: .whitespaces).isEmpty {
            let wanted = selection(attributes)
            var kept: [String: SCIMValue] = [:]
            for (key, value) in members {
                if key == "schemas" || key == "id" {
                    kept[key] = value
                } else if let chosen = wanted[key] {
                    if case let .members(names) = chosen { kept[key] = narrowed(value, keeping: names) } else { kept[key] = value }
                }
            }
            members = kept
        }
        if let excluded {
            for (key, chosen) in selection(excluded) where key != "schemas" && key != "id" {
                guard let value = members[key] else { continue }
                if case let .members(names) = chosen { members[key] = narrowed(value, dropping: names) } else { members[key] = nil }
            }
        }
        return .object(members)
    }

    /// The members a list of attribute paths names, each with what of it is named.
    static func selection(_ list: String) -> [String: Selection] {
        var result: [String: Selection] = [:]
        for item in list.split(separator: ",") {
            let path = SCIMPath.resolve(item.trimmingCharacters(in: .whitespaces))
            guard let key = path.attribute.member else { continue }
            let sub = path.attribute == .role ? "role" : path.subAttribute
            guard let sub else {
                result[key] = .whole
                continue
            }
            switch result[key] {
            case .whole?: break
            case let .members(names)?: result[key] = .members(names.union([sub]))
            case nil: result[key] = .members([sub])
            }
        }
        return result
    }

    /// A complex value (or each of a multi-valued one) with only `names` kept.
    static func narrowed(_ value: SCIMValue, keeping names: Set<String>) -> SCIMValue {
        let lowered = Set(names.map { $0.lowercased() })
        return reshaped(value) { lowered.contains($0.lowercased()) }
    }

    /// A complex value (or each of a multi-valued one) without `names`.
    static func narrowed(_ value: SCIMValue, dropping names: Set<String>) -> SCIMValue {
        let lowered = Set(names.map { $0.lowercased() })
        return reshaped(value) { !lowered.contains($0.lowercased()) }
    }

    private static func reshaped(_ value: SCIMValue, keep: (String) -> Bool) -> SCIMValue {
        switch value {
        case let .object(members): .object(members.filter { keep($0.key) })
        case let .array(items): .array(items.map { reshaped($0, keep: keep) })
        default: value
        }
    }
}
