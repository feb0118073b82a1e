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
