import Foundation
import HTTPTypes
import Hummingbird

/// Requires a caller on every `/v1` route and records who is asking: a valid bearer token,
/// or else a desk session's cookie (DESIGN §9).
///
/// - A bearer token, when present, wins over the cookie (and a bad one is refused even with a
///   good cookie beside it): the app and scripts authenticate with tokens only.
/// - A session acts as its coach with exactly a coach token's rights. Every state-changing
///   request made with the cookie (anything but GET, HEAD and OPTIONS) must carry the
///   session's CSRF token in `X-CSRF-Token`: 403 `csrf_token_missing` without it, 403
///   `csrf_token_invalid` with another one. `SameSite=Strict` already keeps other sites'
///   requests from carrying the cookie; the token is the second lock, and it keeps a
///   same-site page (a file served by someone else on the desk's host) from acting too.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = TilawaRequestContext
    let bearer: BearerVerifier
    let sessions: DeskSessions?
    let clock: @Sendable () -> Date

    init(bearer: BearerVerifier, sessions: DeskSessions? = nil, clock: @escaping @Sendable () -> Date) {
        self.bearer = bearer
        self.sessions = sessions
        self.clock = clock
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // OPTIONS tells what a route speaks (tus discovery, CORS preflight): no token, no data.
        if request.method == .options { return try await next(request, context) }
        var context = context
        var renewal: Cookie?
        if request.headers[.authorization] == nil, let sessions, DeskSessions.hasCookie(request) {
            do {
                (context.principal, renewal) = try await sessionPrincipal(request, sessions: sessions)
            } catch {
                context.refuseBody(of: request)
                throw error
            }
        } else {
            do {
                let token = try bearerToken(fromAuthorizationHeader: request.headers[.authorization])
                context.principal = try await bearer.verify(token, now: clock())
            } catch {
                // Refused before the body, as every refusal that needs no byte of it: a stranger's
                // gigabyte is not read to the end (a large or unframed body closes the connection).
                context.refuseBody(of: request)
                // The database away is no reason to sign anyone out: the store's problem (503).
                if case let .storeFailed(failure) = error { throw failure }
                throw APIProblem(.unauthorized, code: error.code, detail: error.description, headers: [.wwwAuthenticate: error.challenge])
            }
        }
        if let principal = context.principal { context.record.note(principal) }
        var response = try await next(request, context)
        // The session slid on: the browser keeps its cookie as long as the server keeps the session.
        if let renewal { response.setCookie(renewal) }
        return response
    }

    /// The coach of the live session the cookie names, with the CSRF check for changes; and
    /// the cookie to send again when this use moved the session's end on.
    private func sessionPrincipal(_ request: Request, sessions: DeskSessions) async throws -> (Principal, Cookie?) {
        let now = clock()
        guard let (session, secret) = try await sessions.session(of: request, now: now),
              let principal = Principal(subject: session.coachId, role: .coach) else {
            throw APIProblem.unauthorized("session_ended", "Your desk session has ended; open a new login link to sign in again.")
        }
        if ![.get, .head, .options].contains(request.method) {
            guard let given = request.headers[.csrfToken] else {
                throw APIProblem(.forbidden, code: "csrf_token_missing",
                                 detail: "This change was sent without the desk's X-CSRF-Token; reload the desk and try again.")
            }
            guard DeskSecret.matches(given, session.csrfToken) else {
                throw APIProblem(.forbidden, code: "csrf_token_invalid",
                                 detail: "This change carried another session's X-CSRF-Token; reload the desk and try again.")
            }
        }
        return (principal, session.renewed ? sessions.renewedCookie(secret, until: session.expiresAt, now: now) : nil)
    }
}
