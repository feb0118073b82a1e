import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// The coach's desk on the daemon's own listener (DESIGN §9): the sign-in steps, the session
/// the page reads its CSRF token from, sign-out, and the page's static files.
struct DeskRoutes: Sendable {
    let api: APIContext
    let sessions: DeskSessions
    /// Sign-in with the identity provider, when `oidc.desk_client_id` is configured.
    var provider: DeskProviderSignIn? = nil
    let throttle = LoginThrottle()
    /// Login CSRF: the sign-in POST must come from the link's page.
    var origin: LoginOrigin { LoginOrigin(configuration: api.runtime.configuration) }

    func register(on router: Router<TilawaRequestContext>) {
        // `/desk/` and `/desk` are one route to the router (it drops a trailing slash).
        router.get("desk", use: index)
        router.get("desk/login", use: confirm)
        router.post("desk/login", use: login)
        router.post("desk/logout", use: logout)
        router.get("desk/session", use: session)
        router.get("desk/sign-in", use: signInOptions)
        router.post("desk/link-request", use: requestLink)
        router.get("desk/oidc/start", use: providerStart)
        router.get("desk/oidc/callback", use: providerCallback)
        router.get("desk/assets/:name", use: asset)
    }

    /// The `/v1` route of the desk's sign-in: ops ask for a coach's login link.
    func registerAPI(on group: RouterGroup<TilawaRequestContext>) {
        group.post("coaches/:id/login-links", use: issueLink)
    }

    /// `POST /v1/coaches/{id}/login-links` (ops): a new one-time login link for the coach, 201
    /// `{coach_id, url, expires_at}`. The link is in this answer only; hand it to the coach.
    @Sendable func issueLink(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let coachId = try api.identifier("id", in: context)
        guard principal.role == .ops else { throw APIProblem.forbidden("Only operations issue login links.") }
        guard let link = try await LoginLinks(runtime: api.runtime).issue(coachId: coachId, now: api.now) else {
            throw APIProblem.unknownCoach
        }
        let names = api.runtime.pseudonyms
        context.logger.info("login link issued", metadata: ["coach": "\(names.coach(coachId))", "by": "\(names.principal(principal))"])
        return try api.json(LoginLinkResource(coachId: coachId, url: link.url, expiresAt: link.expiresAt), status: .created,
                            headers: [.cacheControl: "no-store"])
    }

    // MARK: Sign-in

    /// `GET /desk/login?token=…`: only a page with a button (a prefetching mail scanner spends nothing).
    @Sendable func confirm(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard let token = request.uri.queryParameters.get("token"), DeskSecret.isWellFormed(token) else {
            return Self.refusalPage(Self.linkInvalid("This address is not a complete login link; open the link from your message again."),
                                    context: context)
        }
        let nonce = origin.nonce(for: request)
        var response = Self.html(DeskPages.confirm(token: token, nonce: nonce.value))
        if let cookie = nonce.cookie { response.setCookie(cookie) }
        return response
    }

    /// `POST /desk/login` (form fields `token` and `nonce`): the link is spent and a session
    /// begins; 303 to the desk with the session cookie. A POST that did not come from the
    /// link's page is 403 `login_not_from_link_page` before the link is looked at
    /// (`LoginOrigin`); a used, expired or unknown link is 401 `login_link_invalid`; repeated
    /// failures of one link are 429 (never by address: see `LoginThrottle`).
    @Sendable func login(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let now = api.now
        let form = String(buffer: try await request.body.collect(upTo: 4096))
        if let problem = origin.refusal(request, nonce: Self.formField("nonce", in: form)) {
            return try Self.refusal(problem, request: request, context: context)
        }
        guard let token = Self.formField("token", in: form), DeskSecret.isWellFormed(token) else {
            // Not a link at all: nothing is looked up, so there is nothing to slow down.
            return try Self.refusal(Self.linkInvalid("This is not a login link."), request: request, context: context)
        }
        let key = DeskSecret.hash(token)
        if let wait = throttle.retryAfter(key, now: now) {
            return try Self.refusal(APIProblem(.tooManyRequests, code: "too_many_login_attempts",
                                               detail: "This link failed too many times; wait \(wait) seconds, or ask for a new link.",
                                               headers: [.retryAfter: "\(wait)"]), request: request, context: context)
        }
        let secret = DeskSecret.make()
        let outcome = try await api.runtime.database.exchangeLoginLink(
            linkHash: DeskSecret.hash(token), sessionHash: DeskSecret.hash(secret), csrfToken: DeskSecret.make(),
            lifetime: sessions.lifetime, now: now)
        switch outcome {
        case let .success(session):
            context.logger.info("desk sign-in", metadata: ["coach": "\(api.runtime.pseudonyms.coach(session.coachId))"])
            var response = Response(status: .seeOther, headers: [.location: "/desk/", .cacheControl: "no-store", .referrerPolicy: "no-referrer"])
            response.setCookie(sessions.cookie(secret))
            response.setCookie(origin.clearingCookie)
            return response
        case let .failure(refusal):
            throttle.fail(key, now: now)
            let detail = switch refusal {
            case .unknown: "This login link is not one Tilawa issued."
            case .used: "This login link was used already; each link signs in once."
            case .expired: "This login link has expired; links last 15 minutes."
            case .unknownCoach: "The coach this link was made for is no longer in the programme."
            }
            return try Self.refusal(Self.linkInvalid(detail), request: request, context: context)
        }
    }

    /// `POST /desk/logout` (the session's cookie and its `X-CSRF-Token`): the session ends
    /// and the cookie is cleared.
    @Sendable func logout(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard let (session, secret) = try await sessions.session(of: request, now: api.now) else {
            var response = Response(status: .noContent, headers: [.cacheControl: "no-store"])
            response.setCookie(sessions.clearingCookie())
            return response
        }
        guard let given = request.headers[.csrfToken] else {
            throw APIProblem(.forbidden, code: "csrf_token_missing", detail: "Signing out needs the desk's X-CSRF-Token; reload the desk and try again.")
        }
        guard DeskSecret.matches(given, session.csrfToken) else {
            throw APIProblem(.forbidden, code: "csrf_token_invalid", detail: "This sign-out carried another session's X-CSRF-Token.")
        }
        try await api.runtime.database.endDeskSession(sessionHash: DeskSecret.hash(secret))
        var response = Response(status: .noContent, headers: [.cacheControl: "no-store"])
        response.setCookie(sessions.clearingCookie())
        return response
    }

    /// `GET /desk/session`: who the cookie signs in, and the CSRF token the page sends with
    /// every change. 401 `session_ended` without a live session.
    @Sendable func session(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard let (session, _) = try await sessions.session(of: request, now: api.now) else {
            throw APIProblem.unauthorized("session_ended", "You are not signed in to the desk; open your login link.")
        }
        let profile = try await api.runtime.database.deskProfile(coachId: session.coachId)
        let placement = profile.flatMap { $0.places ? DeskSessionResource.PlacementChoices(levels: $0.levels, coaches: $0.coaches) : nil }
        return try api.json(DeskSessionResource(coachId: session.coachId, coachName: profile?.name, csrfToken: session.csrfToken,
                                                expiresAt: session.expiresAt, places: profile?.places ?? false, placement: placement),
                            headers: [.cacheControl: "no-store"])
    }

    // MARK: Sign-in with the identity provider

    /// `GET /desk/sign-in`: the ways to sign in besides a login link, for the signed-out page:
    /// `{"provider": "<name on the button>" | null, "start": "/desk/oidc/start" | null,
    /// "link_request": true | false}` (`desk.link_request`: a coach may ask for a new link).
    @Sendable func signInOptions(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        struct Options: Encodable {
            var provider: String?
            var start: String?
            var linkRequest: Bool

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(provider, forKey: .provider)
                try container.encode(start, forKey: .start)
                try container.encode(linkRequest, forKey: .linkRequest)
            }

            enum CodingKeys: String, CodingKey {
                case provider, start
                case linkRequest = "link_request"
            }
        }
        return try api.json(Options(provider: provider?.name, start: provider == nil ? nil : "/desk/oidc/start",
                                    linkRequest: api.runtime.configuration.desk.linkRequest),
                            headers: [.cacheControl: "no-store"])
    }

    /// How often one coach's link may be asked for: a page anyone can post to must not flood
    /// the organisation (or the coach) with links.
    static let linkRequestInterval: TimeInterval = 10 * 60

    /// The answer to every well-formed request for a link, whoever it names: whether a coach
    /// matched is never told (no one learns the roster, or a coach's address, from this page).
    static let linkRequestAnswer = "If that is a coach of the programme, the organisation has been asked to send a new link; "
        + "it works once, for 15 minutes. Nothing arriving? Ask the programme's office."

    /// `POST /desk/link-request` `{"who": "<coach id or email>"}` (`desk.link_request`): a new
    /// login link for that coach goes to the webhook as `desk_link_requested` for the
    /// organisation to deliver; the answer is 202 with the same sentence whoever was named, and
    /// never holds the link. 404 when `desk.link_request` is off; 400 `invalid_link_request`
    /// for a body that is not `{"who": "…"}`.
    @Sendable func requestLink(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard api.runtime.configuration.desk.linkRequest else { throw APIProblem.notFound("asking for a login link here") }
        struct Body: Decodable { var who: String }
        let data = Data(String(buffer: try await request.body.collect(upTo: 2048)).utf8)
        guard let body = try? JSONDecoder().decode(Body.self, from: data),
              !body.who.trimmingCharacters(in: .whitespaces).isEmpty, body.who.utf8.count <= 254 else {
            throw APIProblem(.badRequest, code: "invalid_link_request", detail: "Send {\"who\": \"<your coach ID or email>\"}.")
        }
        let secret = DeskSecret.make()
        let now = api.now
        let origin = LoginLinks.origin(api.runtime.configuration)
        let outcome = try await api.runtime.database.requestDeskLink(
            who: body.who, secretHash: DeskSecret.hash(secret), url: { _ in "\(origin)/desk/login?token=\(secret)" }, now: now,
            expiresAt: now.addingTimeInterval(LoginLinks.lifetime), interval: Self.linkRequestInterval)
        switch outcome {
        case let .queued(coachId, eventId):
            context.logger.info("desk link requested", metadata: ["coach": "\(api.runtime.pseudonyms.coach(coachId))", "event": "\(eventId)"])
        case let .tooSoon(coachId):
            context.logger.info("desk link request ignored: one was sent within 10 minutes", metadata: ["coach": "\(api.runtime.pseudonyms.coach(coachId))"])
        case .unknownCoach:
            context.logger.info("desk link request for no coach")
        }
        struct Answer: Encodable { var detail: String }
        return try api.json(Answer(detail: Self.linkRequestAnswer), status: .accepted, headers: [.cacheControl: "no-store"])
    }

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

    /// A refusal of a browser's navigation: a page (`DeskPages.invalid`, or `render`) with its sentence, and its headers.
    static func page(_ problem: APIProblem, _ render: (String) -> String = DeskPages.invalid) -> Response {
        var response = html(render(problem.detail), status: problem.status)
        for field in problem.headers { response.headers[field.name] = field.value }
        return response
    }

    // MARK: The page

    /// `GET /desk/`: the desk's page, never cached (its assets are, by ETag).
    @Sendable func index(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard let page = DeskAssets.file(named: "index.html") else { throw APIProblem.notFound("desk page") }
        return Response(status: .ok, headers: DeskPages.headers(), body: .init(byteBuffer: ByteBuffer(bytes: page.bytes)))
    }

    /// `GET /desk/assets/{name}`: a file of `web/desk/`, embedded at build time, with its ETag.
    @Sendable func asset(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        guard let name = context.parameters.get("name"), let file = DeskAssets.file(named: name), name != "index.html" else {
            throw APIProblem.notFound("desk file")
        }
        var headers = DeskPages.headers(contentType: file.contentType)
        headers[.eTag] = file.etag
        headers[.cacheControl] = "no-cache"
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == file.etag
        }) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    // MARK: Helpers

    static func linkInvalid(_ detail: String) -> APIProblem {
        APIProblem(.unauthorized, code: "login_link_invalid", detail: detail)
    }

    /// A refusal as a page for a browser (the form's POST), as problem+json for anything else.
    static func refusal(_ problem: APIProblem, request: Request, context: TilawaRequestContext) throws -> Response {
        guard request.headers[.accept]?.contains("text/html") ?? false else {
            context.record.noteRefusal(problem)
            return try problem.response(from: request, context: context)
        }
        return refusalPage(problem, context: context)
    }

    /// `page(problem)`, with a 401's code noted for the request log (it is answered here, not thrown).
    static func refusalPage(_ problem: APIProblem, context: TilawaRequestContext) -> Response {
        context.record.noteRefusal(problem)
        return page(problem)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: DeskPages.headers(), body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// One field of an `application/x-www-form-urlencoded` body.
    static func formField(_ name: String, in body: String) -> String? {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == name[...] else { continue }
            return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }
}

/// `POST /v1/coaches/{id}/login-links`.
struct LoginLinkResource: Encodable {
    var coachId: String
    var url: String
    var expiresAt: Date
}

/// `GET /desk/session`.
struct DeskSessionResource: Encodable {
    /// What a placing coach chooses from when placing an assessment.
    struct PlacementChoices: Encodable {
        var levels: [DeskProfile.Choice]
        var coaches: [DeskProfile.Choice]
    }

    var coachId: String
    var coachName: String?
    var csrfToken: String
    var expiresAt: Date
    /// Whether the coach places students (the desk offers placement on assessments).
    var places: Bool
    /// The levels and coaches to place with; null for a coach who does not place.
    var placement: PlacementChoices?
}
