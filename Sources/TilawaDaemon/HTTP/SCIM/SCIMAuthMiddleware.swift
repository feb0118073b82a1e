import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The one credential `/scim/v2` accepts: `Authorization: Bearer <the token of
/// scim.token_file>` (DESIGN §16). No API token of any kind — the daemon's own, the identity
/// provider's, a desk session — passes here, and the SCIM token passes nowhere else (it is no
/// JWT: every `/v1` route refuses it as `invalid_token`).
///
/// The comparison takes the same time wherever the tokens differ: both are hashed with
/// SHA-256 first, and the digests compared byte for byte without stopping early. With SCIM
/// off (no `scim.token_file`) every request is 404, token or not.
struct SCIMAuthMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext
    /// The token's bytes, nil when SCIM is off.
    let token: [UInt8]?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token else {
            context.refuseBody(of: request)
            throw SCIMError(.notFound, nil, "SCIM provisioning is off on this server: an operator turns it on with scim.token_file.")
        }
        let given: String
        do {
            given = try bearerToken(fromAuthorizationHeader: request.headers[.authorization])
        } catch {
            context.refuseBody(of: request)
            throw SCIMError.unauthorized("missing_token", "Send the SCIM token as Authorization: Bearer <token>.")
        }
        guard Self.matches(Array(given.utf8), token) else {
            context.refuseBody(of: request)
            throw SCIMError.unauthorized("invalid_token", "The bearer token is not this server's SCIM token (scim.token_file); no other token is accepted here.")
        }
        return try await next(request, context)
    }

    /// Whether `given` is `expected`, in time that does not depend on where they differ.
    static func matches(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        let one = Array(SHA256.hash(data: given)), other = Array(SHA256.hash(data: expected))
        return zip(one, other).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
