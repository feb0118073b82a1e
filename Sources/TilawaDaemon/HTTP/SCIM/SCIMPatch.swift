import Foundation

/// A `PATCH /Users/{id}` body (RFC 7644 §3.5.2): `{"schemas": ["urn:ietf:params:scim:api:
/// messages:2.0:PatchOp"], "Operations": [{"op": "add"|"replace"|"remove", "path"?, "value"?}]}`.
///
/// What identity providers send is read as they send it: `op` in any case (Entra ID's
/// `"Replace"`), booleans as text (`"False"`), and an operation without `path` whose value's
/// members are themselves paths — Okta's `{"op": "replace", "value": {"active": false}}`, Entra
/// ID's `{"name.givenName": …}` or URN-qualified members.
struct SCIMPatch: Sendable {
    enum Op: String, Sendable {
        case add, replace, remove
    }

    struct Operation: Sendable {
        var op: Op
        var path: SCIMPath?
        var value: SCIMValue?
    }

    var operations: [Operation]

    /// The most operations one request may carry.
    static let maximumOperations = 100

    init(body: SCIMValue) throws {
        guard body.objectValue != nil else { throw SCIMError.invalidSyntax("A PATCH body is a JSON object: {\"schemas\": [\"\(SCIMSchema.patchOp)\"], \"Operations\": [...]}.") }
        if let schemas = body[member: "schemas"] {
            guard case let .array(items) = schemas,
                  items.contains(where: { $0.stringValue?.lowercased() == SCIMSchema.patchOp.lowercased() }) else {
                throw SCIMError.invalidSyntax("A PATCH body's schemas is [\"\(SCIMSchema.patchOp)\"].")
            }
        }
        guard case let .array(items)? = body[member: "Operations"], !items.isEmpty else {
            throw SCIMError.invalidSyntax("A PATCH body carries its changes in Operations, a list of {\"op\", \"path\", \"value\"}.")
        }
        guard items.count <= Self.maximumOperations else {
            throw SCIMError(.badRequest, "tooMany", "A PATCH carries at most \(Self.maximumOperations) operations.")
        }
        var operations: [Operation] = []
        for item in items {
            guard let name = item[member: "op"]?.stringValue, let op = Op(rawValue: name.lowercased()) else {
                throw SCIMError.invalidSyntax("Each operation's op is add, replace or remove.")
            }
            var path: SCIMPath?
            if let given = item[member: "path"], given != .null {
                guard let text = given.stringValue else { throw SCIMError.invalidPath("An operation's path is text, such as name.givenName.") }
                if !text.trimmingCharacters(in: .whitespaces).isEmpty { path = try SCIMPath(parsing: text) }
            }
            let value = item[member: "value"]
            if op == .remove, path == nil {
                throw SCIMError(.badRequest, "noTarget", "A remove operation names what it removes in path.")
            }
            if op != .remove, value == nil {
                throw SCIMError.invalidSyntax("An \(op.rawValue) operation carries a value.")
            }
            operations.append(Operation(op: op, path: path, value: value))
        }
        self.operations = operations
    }

    /// Applies every operation in order, then checks the rules a User keeps (a `userName`, …):
    /// all of them or, by the error, none.
    func apply(to attributes: inout SCIMUserAttributes) throws {
        for operation in operations {
            if let path = operation.path {
                try attributes.apply(operation.op, at: path, operation.value)
                continue
            }
            guard let members = operation.value?.objectValue else {
                throw SCIMError.invalidValue("An \(operation.op.rawValue) without a path carries an object of attributes, such as {\"active\": false}.")
            }
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                // A member of the value is a path itself (`name.givenName`, a URN-qualified name).
                let path = (try? SCIMPath(parsing: key)) ?? SCIMPath(attribute: .unknown)
                switch path.attribute {
                case .id, .schemas, .meta: continue
                default: try attributes.apply(operation.op, at: path, value)
                }
            }
        }
        try attributes.validate()
    }
}
