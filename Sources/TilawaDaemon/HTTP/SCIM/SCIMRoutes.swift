import Foundation
import TilawaStore
import HTTPTypes
import Hummingbird
import NIOCore

/// The SCIM 2.0 service provider at `/scim/v2` (RFC 7643, RFC 7644; DESIGN §16): the
/// organisation's identity provider (Okta, Entra ID, Keycloak, …) provisions the programme's
/// students and links its coaches as `User`s, with the token of `scim.token_file` only
/// (`SCIMAuthMiddleware`). Bodies are `application/scim+json` (`application/json` is read too);
/// every refusal is a SCIM error (`SCIMError`).
///
/// Discovery: `ServiceProviderConfig`, `ResourceTypes` (User only: no Groups — a coach's level
/// and students are the programme file's and the back office's), `Schemas` (the core User's
/// attributes Tilawa keeps and its extension with `role`). Users: `SCIMUserRoutes`.
/// `POST /.search` is 501: searching several resource types at once is not offered.
struct SCIMRoutes: Sendable {
    let api: APIContext

    /// The media type of every SCIM answer (RFC 7644 §8.1).
    static let mediaType = "application/scim+json"

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("ServiceProviderConfig", use: serviceProviderConfig)
        group.get("ResourceTypes", use: resourceTypes)
        group.get("ResourceTypes/:id", use: resourceType)
        group.get("Schemas", use: schemas)
        group.get("Schemas/:id", use: schema)
        group.post(".search", use: search)
        SCIMUserRoutes(api: api).register(on: group)
    }

    @Sendable func serviceProviderConfig(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        try Self.json(SCIMDiscovery.serviceProviderConfig(base: Self.base(api, request)))
    }

    @Sendable func resourceTypes(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        try Self.json(Self.list(SCIMDiscovery.resourceTypes(base: Self.base(api, request)), total: nil, startIndex: 1))
    }

    @Sendable func resourceType(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let id = Self.parameter("id", context)
        guard let found = SCIMDiscovery.resourceTypes(base: Self.base(api, request)).first(where: { $0[member: "id"]?.stringValue == id }) else {
            throw SCIMError(.notFound, nil, "No resource type is called \(SCIMPath.quoted(id)); there is one: User.")
        }
        return try Self.json(found)
    }

    @Sendable func schemas(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        try Self.json(Self.list(SCIMDiscovery.schemas(base: Self.base(api, request)), total: nil, startIndex: 1))
    }

    @Sendable func schema(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let id = Self.parameter("id", context)
        guard let found = SCIMDiscovery.schemas(base: Self.base(api, request))
            .first(where: { $0[member: "id"]?.stringValue?.lowercased() == id.lowercased() }) else {
            throw SCIMError(.notFound, nil, "No schema has the id \(SCIMPath.quoted(id)).")
        }
        return try Self.json(found)
    }

    /// `POST /.search`: 501, as RFC 7644 §3.12 answers an operation not offered (`GET /Users`
    /// with `filter` searches users).
    @Sendable func search(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        context.refuseBody(of: request)
        throw SCIMError(.notImplemented, nil, "Searching several resource types at once is not offered; search users with GET /Users?filter=….")
    }

    // MARK: - Shared

    /// Who the audit log names for what the SCIM client did.
    static let actor = AppDatabase.scimActor

    /// The base URL the resources' `meta.location` are under: `desk.public_url`'s origin (the
    /// service's public one), else the request's own host; then `/scim/v2`.
    static func base(_ api: APIContext, _ request: Request) -> String {
        if let url = api.runtime.configuration.desk.publicURL, let origin = LoginOrigin.origin(of: url) { return origin + "/scim/v2" }
        if let host = request.head.authority, !host.isEmpty { return "http://" + host + "/scim/v2" }
        return "/scim/v2"
    }

    /// A path parameter, percent-decoded.
    static func parameter(_ name: String, _ context: TilawaRequestContext) -> String {
        let raw = context.parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    /// A `ListResponse` (RFC 7644 §3.4.2) of `resources`, of `total` in all (their count by default).
    static func list(_ resources: [SCIMValue], total: Int?, startIndex: Int) -> SCIMValue {
        .object([
            "schemas": .array([.string(SCIMSchema.listResponse)]),
            "totalResults": .count(total ?? resources.count),
            "startIndex": .count(startIndex),
            "itemsPerPage": .count(resources.count),
            "Resources": .array(resources),
        ])
    }

    /// An `application/scim+json` answer.
    static func json(_ value: SCIMValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        var headers = headers
        headers[.contentType] = mediaType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try value.encoded())))
    }

    /// The request's JSON body, decoded by Hummingbird's request decoder (at most the context's
    /// 64 KiB); 415 for a media type other than `application/scim+json` or `application/json`.
    static func body(_ request: Request, context: TilawaRequestContext) async throws -> SCIMValue {
        if let type = request.headers[.contentType]?.lowercased(), !type.hasPrefix(mediaType), !type.hasPrefix("application/json") {
            context.refuseBody(of: request)
            throw SCIMError(.unsupportedMediaType, nil, "Send the body as application/scim+json (or application/json).")
        }
        return try await request.decode(as: SCIMValue.self, context: context)
    }

    /// An `If-Match` or `If-None-Match` header (RFC 7232 §3.1, §3.2; RFC 7644 §3.14).
    enum Precondition: Equatable {
        /// `*`: any current version.
        case any
        /// The versions of the ETags given (`W/"3"`, `"3"`); a tag of another shape matches none.
        case versions([Int])

        init?(_ header: String?) {
            guard let header else { return nil }
            var versions: [Int] = []
            for item in header.split(separator: ",") {
                var tag = item.trimmingCharacters(in: .whitespaces)
                if tag == "*" {
                    self = .any
                    return
                }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if let version = Int(tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) { versions.append(version) }
            }
            self = .versions(versions)
        }

        /// What the store checks: nil for none (or `*`, which any user meets).
        static func ifMatch(_ request: Request) -> [Int]? {
            switch Precondition(request.headers[.ifMatch]) {
            case nil, .any?: nil
            case let .versions(versions)?: versions
            }
        }

        /// Whether `version` meets this precondition.
        func matches(_ version: Int) -> Bool {
            switch self {
            case .any: true
            case let .versions(versions): versions.contains(version)
            }
        }
    }
}
