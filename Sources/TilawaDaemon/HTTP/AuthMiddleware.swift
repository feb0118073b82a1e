import Foundation
import HTTPTypes
import Hummingbird

/// Requires a valid bearer token on every `/v1` route and records who is asking.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext
    let authority: TokenAuthority
    let clock: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // OPTIONS tells what a route speaks (tus discovery, CORS preflight): no token, no data.
        if request.method == .options { return try await next(request, context) }
        var context = context
        do {
            let token = try bearerToken(fromAuthorizationHeader: request.headers[.authorization])
            let principal = try await authority.verify(token, now: clock())
            context.principal = principal
            context.record.note(principal)
        } catch {
            throw APIProblem(.unauthorized, code: error.code, detail: error.description, headers: [.wwwAuthenticate: error.challenge])
        }
        return try await next(request, context)
    }
}
