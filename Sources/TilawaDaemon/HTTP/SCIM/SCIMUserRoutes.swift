import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// `/scim/v2/Users` (RFC 7644 §3.3–3.6): a provisioned student or coach (DESIGN §16).
///
/// `userName` is the `subject` the person signs in with (the `sub` of the provider's tokens);
/// the role is the Tilawa extension's, else `scim.default_role`. A student is the roster's
/// row with that subject, else a new one awaiting placement (`P100001`, …) who can record the
/// placement assessment at once; a coach must already be in program.yaml. `active: false` and
/// `DELETE` sign the person out everywhere and pause a student's running enrolment (the back
/// office's pause, audited as `scim`) — never an erasure; `active: true` resumes. Every change
/// answers the resource with its `ETag` (`W/"n"`, `meta.version`); `If-Match` makes `PUT`,
/// `PATCH` and `DELETE` conditional (412 when the user changed since).
struct SCIMUserRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("Users", use: list)
        group.post("Users", use: create)
        group.get("Users/:id", use: get)
        group.put("Users/:id", use: replace)
        group.patch("Users/:id", use: patch)
        group.delete("Users/:id", use: remove)
    }

    /// `POST /Users` → 201 with `Location` and `ETag`; 409 `uniqueness` for a `userName` already
    /// provisioned or someone else's subject, 400 `invalidValue` for a coach program.yaml does not have.
    @Sendable func create(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let body = try await SCIMRoutes.body(request, context: context)
        let draft = try SCIMUserAttributes(resource: body).draft()
        try refuseOperatorSubject(draft.userName)
        let role = api.runtime.configuration.scim?.defaultRole.rawValue ?? Device.Owner.student.rawValue
        let outcome = try await api.runtime.database.createSCIMUser(draft, defaultRole: Device.Owner(rawValue: role) ?? .student,
                                                                    by: SCIMRoutes.actor, policy: api.runtime.policy, now: api.now)
        return try answer(outcome, status: .created, request: request, context: context, event: "provisioned")
    }

    /// 409 `uniqueness` for a userName that is an operator's subject (`oidc.ops_subjects`): as a
    /// student's or coach's subject it would turn the operator's sign-in into theirs.
    func refuseOperatorSubject(_ userName: String) throws {
        if api.runtime.configuration.oidc?.opsSubjects[userName] != nil {
            throw SCIMError(.conflict, "uniqueness", "\(userName) is an operator's subject (oidc.ops_subjects); operators are not provisioned")
        }
    }

    /// `GET /Users/{id}` → the user; 304 when `If-None-Match` names its version.
    @Sendable func get(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let id = try Self.userId(context)
        guard let user = try await api.runtime.database.scimUser(id: id) else { throw SCIMError.notFound }
        if let unchanged = SCIMRoutes.Precondition(request.headers[.ifNoneMatch]), unchanged.matches(user.version) {
            return Response(status: .notModified, headers: [.eTag: SCIMUserResource.etag(user.version)])
        }
        return try respond(user, status: .ok, request: request)
    }

    /// `PUT /Users/{id}`: the user becomes the body (attributes left out are unassigned; the
    /// role stays unless the body names another, which is 400 `mutability`).
    @Sendable func replace(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let id = try Self.userId(context)
        let body = try await SCIMRoutes.body(request, context: context)
        let draft = try SCIMUserAttributes(resource: body).draft()
        try refuseOperatorSubject(draft.userName)
        let outcome = try await api.runtime.database.updateSCIMUser(
            id: id, ifMatch: SCIMRoutes.Precondition.ifMatch(request), by: SCIMRoutes.actor, policy: api.runtime.policy, now: api.now
        ) { _ in draft }
        return try answer(outcome, status: .ok, request: request, context: context, event: "replaced")
    }

    /// `PATCH /Users/{id}`: the operations applied to the user as stored, in its transaction.
    @Sendable func patch(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let id = try Self.userId(context)
        let body = try await SCIMRoutes.body(request, context: context)
        let operations = try SCIMPatch(body: body)
        let outcome = try await api.runtime.database.updateSCIMUser(
            id: id, ifMatch: SCIMRoutes.Precondition.ifMatch(request), by: SCIMRoutes.actor, policy: api.runtime.policy, now: api.now
        ) { user in
            var attributes = SCIMUserAttributes(user: user)
            try operations.apply(to: &attributes)
            let draft = try attributes.draft()
            try refuseOperatorSubject(draft.userName)
            return draft
        }
        return try answer(outcome, status: .ok, request: request, context: context, event: "patched")
    }

    /// `DELETE /Users/{id}` → 204: deprovisioned as by `active: false`, then unknown to SCIM.
    @Sendable func remove(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let id = try Self.userId(context)
        switch try await api.runtime.database.deleteSCIMUser(id: id, ifMatch: SCIMRoutes.Precondition.ifMatch(request), by: SCIMRoutes.actor,
                                                             policy: api.runtime.policy, now: api.now) {
        case let .failure(refusal):
            throw SCIMError(refusal)
        case .success:
            // A student's or a coach's: the path does not say which.
            context.logger.notice("scim user deleted", metadata: ["id": "\(api.runtime.pseudonyms.person(id))"])
            return Response(status: .noContent)
        }
    }

    /// `GET /Users?filter=&startIndex=&count=&attributes=&excludedAttributes=`: a `ListResponse`,
    /// oldest first; `startIndex` counts from 1, `count` is at most `maxResults` (200).
    @Sendable func list(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let filter = try query.get("filter").map { try SCIMFilter(parsing: $0) }
        let startIndex = max(1, query.get("startIndex").flatMap { Int($0) } ?? 1)
        let count = min(SCIMDiscovery.maxResults, max(0, query.get("count").flatMap { Int($0) } ?? SCIMDiscovery.maxResults))
        let conditions = try Self.conditions(filter)
        let page = try await api.runtime.database.scimUsers(conditions, offset: startIndex - 1, limit: count)
        let base = SCIMRoutes.base(api, request)
        let resources = page.users.map {
            SCIMUserResource.projected(SCIMUserResource.resource($0, base: base), attributes: query.get("attributes"),
                                       excluded: query.get("excludedAttributes"))
        }
        return try SCIMRoutes.json(SCIMRoutes.list(resources, total: page.total, startIndex: startIndex))
    }

    /// The store's conditions for a filter. An email comparison is one condition: the value
    /// filter's comparisons and the email's value, all to hold on one email (the store looks
    /// the email up by its value).
    static func conditions(_ filter: SCIMFilter?) throws -> [SCIMUserCondition] {
        var conditions: [SCIMUserCondition] = []
        for comparison in filter?.comparisons ?? [] {
            let path = comparison.path
            let text = comparison.value.stringValue
            switch path.attribute {
            case .userName where path.subAttribute == nil && path.filter == nil && text != nil:
                conditions.append(.userName(text ?? ""))
            case .externalId where path.subAttribute == nil && path.filter == nil && text != nil:
                conditions.append(.externalId(text ?? ""))
            case .id where path.subAttribute == nil && path.filter == nil && text != nil:
                conditions.append(.id(text ?? ""))
            case .active where path.subAttribute == nil && path.filter == nil:
                guard let flag = try? SCIMUserAttributes.flag(comparison.value, "active") else { throw Self.unsupported }
                conditions.append(.active(flag))
            case .emails where (path.subAttribute ?? "value") == "value" && text != nil:
                let matches = (path.filter ?? []) + [SCIMPath.Match(subAttribute: "value", value: .string(text ?? ""))]
                conditions.append(.email(matches.map(Self.emailComparison)))
            default:
                throw Self.unsupported
            }
        }
        return conditions
    }

    /// A value filter's comparison as the store makes it; one that no email can meet (as
    /// `SCIMEmail.meets` decides: another member, or a value of another type) is `unmet`.
    static func emailComparison(_ match: SCIMPath.Match) -> SCIMEmailComparison {
        switch (match.subAttribute.lowercased(), match.value) {
        case ("value", .string(let text)): return .value(text)
        case ("type", .string(let text)): return .type(text)
        case ("display", .string(let text)): return .display(text)
        case ("primary", .bool(let flag)): return .primary(flag)
        default: return .unmet
        }
    }

    static let unsupported = SCIMError.invalidFilter("""
        Tilawa filters users by userName, externalId, id, active and emails[type eq "…"].value, each with eq, joined by and.
        """)

    /// The path's user id: an id of Tilawa's shape, else 404 (no such user).
    static func userId(_ context: TilawaRequestContext) throws -> String {
        let id = SCIMRoutes.parameter("id", context)
        guard Identifier(rawValue: id) != nil else { throw SCIMError.notFound }
        return id
    }

    private func answer(_ outcome: Result<SCIMUser, SCIMRefusal>, status: HTTPResponse.Status, request: Request,
                        context: TilawaRequestContext, event: String) throws -> Response {
        switch outcome {
        case let .failure(refusal):
            throw SCIMError(refusal)
        case let .success(user):
            context.logger.notice("scim user \(event)", metadata: [
                "owner": "\(user.owner.rawValue):\(api.runtime.pseudonyms.owner(user.owner, user.id))", "version": "\(user.version)",
                "active": "\(user.isActive)",
            ])
            return try respond(user, status: status, request: request)
        }
    }

    /// The user as the request's `attributes`/`excludedAttributes` ask, with its `ETag` (and
    /// `Location` when created).
    private func respond(_ user: SCIMUser, status: HTTPResponse.Status, request: Request) throws -> Response {
        let base = SCIMRoutes.base(api, request)
        let query = request.uri.queryParameters
        let resource = SCIMUserResource.projected(SCIMUserResource.resource(user, base: base), attributes: query.get("attributes"),
                                                  excluded: query.get("excludedAttributes"))
        var headers: HTTPFields = [.eTag: SCIMUserResource.etag(user.version)]
        if status == .created { headers[.location] = base + "/Users/" + user.id }
        return try SCIMRoutes.json(resource, status: status, headers: headers)
    }
}
