import Foundation

/// The URNs SCIM names its schemas and messages by (RFC 7643 §8.7, RFC 7644 §3), and Tilawa's
/// own extension of the User.
enum SCIMSchema {
    static let user = "urn:ietf:params:scim:schemas:core:2.0:User"
    /// The Tilawa extension: `role`, `student` or `coach`.
    static let tilawaUser = "urn:tilawa:params:scim:schemas:extension:tilawa:2.0:User"
    static let serviceProviderConfig = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
    static let resourceType = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
    static let schema = "urn:ietf:params:scim:schemas:core:2.0:Schema"
    static let listResponse = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
    static let patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
    static let error = "urn:ietf:params:scim:api:messages:2.0:Error"
}

/// What the service provider says of itself (RFC 7644 §4): its configuration, its one resource
/// type (User: no Groups — a coach's level and students come from program.yaml and the back
/// office, not from groups), and the schemas: the core User's attributes Tilawa keeps and the
/// Tilawa extension.
enum SCIMDiscovery {
    /// The most users one `GET /Users` answers (`count` is capped to it).
    static let maxResults = 200

    static func serviceProviderConfig(base: String) -> SCIMValue {
        .object([
            "schemas": .array([.string(SCIMSchema.serviceProviderConfig)]),
            "patch": .object(["supported": .bool(true)]),
            "bulk": .object(["supported": .bool(false), "maxOperations": .count(0), "maxPayloadSize": .count(0)]),
            "filter": .object(["supported": .bool(true), "maxResults": .count(maxResults)]),
            "changePassword": .object(["supported": .bool(false)]),
            "sort": .object(["supported": .bool(false)]),
            "etag": .object(["supported": .bool(true)]),
            "authenticationSchemes": .array([.object([
                "type": .string("oauthbearertoken"),
                "name": .string("OAuth Bearer Token"),
                "description": .string("The token of scim.token_file, sent as Authorization: Bearer <token>; no other credential is accepted."),
                "specUri": .string("https://www.rfc-editor.org/info/rfc6750"),
                "primary": .bool(true),
            ])]),
            "meta": .object(["resourceType": .string("ServiceProviderConfig"), "location": .string(base + "/ServiceProviderConfig")]),
        ])
    }

    static func resourceTypes(base: String) -> [SCIMValue] {
        [.object([
            "schemas": .array([.string(SCIMSchema.resourceType)]),
            "id": .string("User"),
            "name": .string("User"),
            "endpoint": .string("/Users"),
            "description": .string("A student or a coach of the programme; the role is the Tilawa extension's."),
            "schema": .string(SCIMSchema.user),
            "schemaExtensions": .array([.object(["schema": .string(SCIMSchema.tilawaUser), "required": .bool(false)])]),
            "meta": .object(["resourceType": .string("ResourceType"), "location": .string(base + "/ResourceTypes/User")]),
        ])]
    }

    static func schemas(base: String) -> [SCIMValue] {
        let text = { (name: String, description: String, required: Bool, uniqueness: String) -> SCIMValue in
            attribute(name, "string", description, required: required, uniqueness: uniqueness)
        }
        let user = schema(SCIMSchema.user, name: "User", description: "The attributes of the core User that Tilawa keeps.", base: base, attributes: [
            text("userName", "The subject the person signs in with: the sub of the identity provider's tokens.", true, "server"),
            attribute("name", "complex", "The person's name; a student is shown by formatted, else givenName and familyName.",
                      subAttributes: SCIMPath.nameMembers.map { text($0, "The \($0) part of the name.", false, "none") }),
            text("displayName", "The name shown when name has none.", false, "none"),
            attribute("emails", "complex", "Email addresses.", multiValued: true, subAttributes: [
                text("value", "The address.", false, "none"),
                text("display", "The address as shown.", false, "none"),
                attribute("type", "string", "work, home or other.", canonicalValues: ["work", "home", "other"]),
                attribute("primary", "boolean", "The preferred address; true on one at most."),
            ]),
            attribute("active", "boolean", "false deprovisions: signed out everywhere and a student's enrolment paused (never erased); true again resumes."),
        ])
        let tilawa = schema(SCIMSchema.tilawaUser, name: "TilawaUser", description: "Tilawa's extension of the User.", base: base, attributes: [
            attribute("role", "string", """
                student (the default, scim.default_role) or coach; fixed once provisioned. A coach must already be in program.yaml, \
                with this userName as their subject (or as their id).
                """, mutability: "immutable", canonicalValues: ["student", "coach"]),
        ])
        return [user, tilawa]
    }

    private static func schema(_ id: String, name: String, description: String, base: String, attributes: [SCIMValue]) -> SCIMValue {
        .object([
            "schemas": .array([.string(SCIMSchema.schema)]),
            "id": .string(id),
            "name": .string(name),
            "description": .string(description),
            "attributes": .array(attributes),
            "meta": .object(["resourceType": .string("Schema"), "location": .string(base + "/Schemas/" + id)]),
        ])
    }

    /// An attribute definition (RFC 7643 §7).
    private static func attribute(
        _ name: String, _ type: String, _ description: String, multiValued: Bool = false, required: Bool = false,
        mutability: String = "readWrite", uniqueness: String = "none", canonicalValues: [String]? = nil, subAttributes: [SCIMValue]? = nil
    ) -> SCIMValue {
        var members: [String: SCIMValue] = [
            "name": .string(name), "type": .string(type), "multiValued": .bool(multiValued), "description": .string(description),
            "required": .bool(required), "mutability": .string(mutability), "returned": .string("default"),
            "uniqueness": .string(uniqueness),
        ]
        if type == "string" { members["caseExact"] = .bool(false) }
        if let canonicalValues { members["canonicalValues"] = .array(canonicalValues.map(SCIMValue.string)) }
        if let subAttributes { members["subAttributes"] = .array(subAttributes) }
        return .object(members)
    }
}
