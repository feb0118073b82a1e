import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Sign-in at the identity provider (`oidc.desk_client_id`): the way there and the way back.
extension DeskRoutes {
    /// `GET /desk/oidc/start`: to the provider, with this sign-in's state, nonce and code
    /// challenge (kept in `tilawa_desk_oidc`). 404 without `oidc.desk_client_id`.
    @Sendable func providerStart(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard let provider else { throw APIProblem.notFound("sign-in with an identity provider") }
        let attempt = DeskProviderSignIn.Attempt.make()
        let address: String
        do {
            address = try await provider.authorizationURL(attempt, request: request)
        } catch {
            context.record.noteRefusal(error.problem)
            return Self.page(error.problem, DeskPages.notSignedIn)
        }
        var response = Response(status: .found, headers: [.location: address, .cacheControl: "no-store", .referrerPolicy: "no-referrer"])
        response.setCookie(provider.cookie(attempt))
        return response
    }

    /// `GET /desk/oidc/callback?code=…&state=…` (or `?error=…`): the provider's answer. The
    /// state must be this browser's sign-in's (else 400 `oidc_state_mismatch`: started
    /// elsewhere, or more than 10 minutes ago); the code is traded, the ID token verified, and
    /// its `sub` must be a coach's (else 403 `not_a_coach`). Then a desk session begins, as
    /// with a login link: 303 to the desk. The sign-in's cookie is cleared on every answer.
    @Sendable func providerCallback(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard let provider else { throw APIProblem.notFound("sign-in with an identity provider") }
        let query = request.uri.queryParameters
        func page(_ problem: APIProblem) -> Response {
            context.record.noteRefusal(problem)
            var response = Self.page(problem, DeskPages.notSignedIn)
            response.setCookie(provider.clearingCookie)
            return response
        }
        guard let kept = request.cookies[DeskProviderSignIn.cookieName]?.value, let attempt = DeskProviderSignIn.Attempt(cookieValue: kept),
              let state = query.get("state"), DeskSecret.matches(state, attempt.state) else {
            return page(APIProblem(.badRequest, code: "oidc_state_mismatch",
                                   detail: "This sign-in was not started on this browser, or was started more than 10 minutes ago; start it again from the desk."))
        }
        if let error = query.get("error") {
            let reason = String(error.prefix(64).filter { $0.isLetter || $0 == "_" })
            return page(APIProblem(.unauthorized, code: "oidc_sign_in_refused",
                                   detail: "\(provider.name) did not sign you in (\(reason)); start again, or use a login link."))
        }
        guard let code = query.get("code"), !code.isEmpty, code.utf8.count <= 2048 else {
            return page(APIProblem(.badRequest, code: "oidc_code_missing", detail: "\(provider.name) sent no sign-in code; start the sign-in again."))
        }
        let subject: String
        do {
            subject = try await provider.subject(code: code, attempt: attempt, request: request)
        } catch {
            return page(error.problem)
        }
        let principal = try? await api.bearer.principal(forSubject: subject)
        guard let principal, principal.role == .coach else {
            context.logger.info("desk sign-in refused: not a coach", metadata: ["subject": "\(api.runtime.pseudonyms.subject(subject))"])
            return page(APIProblem(.forbidden, code: "not_a_coach",
                                   detail: "You signed in at \(provider.name), but that account is not a coach of this programme; ask the programme's office."))
        }
        let now = api.now
        let secret = DeskSecret.make()
        guard let session = try await api.runtime.database.startDeskSession(
            coachId: principal.subject, sessionHash: DeskSecret.hash(secret), csrfToken: DeskSecret.make(), lifetime: sessions.lifetime, now: now)
        else {
            return page(APIProblem(.forbidden, code: "not_a_coach", detail: "That coach is no longer in the programme; ask the programme's office."))
        }
        context.logger.info("desk sign-in", metadata: ["coach": "\(api.runtime.pseudonyms.coach(session.coachId))", "by": "identity provider"])
        var response = Response(status: .seeOther, headers: [.location: "/desk/", .cacheControl: "no-store", .referrerPolicy: "no-referrer"])
        response.setCookie(sessions.cookie(secret))
        response.setCookie(provider.clearingCookie)
        return response
    }
}
