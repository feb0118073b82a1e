import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Signing in to the desk with the organisation's identity provider, beside login links:
/// OpenID Connect's authorization code flow with PKCE (RFC 7636), the desk a public client
/// (`oidc.desk_client_id`, no secret), the coach found by the ID token's `sub` as for the
/// provider's access tokens (a coach's `subject`).
///
/// `GET /desk/oidc/start` sends the browser to the provider's `authorization_endpoint` (from
/// `<oidc.issuer>/.well-known/openid-configuration`) with a fresh `state`, `nonce` and S256
/// code challenge; the three are kept in a short cookie (`tilawa_desk_oidc`: `HttpOnly`,
/// `SameSite=Lax` — the provider's redirect back is a top-level navigation from another site —
/// `Path=/desk/oidc`, 10 minutes). `GET /desk/oidc/callback` checks `state` against it, trades
/// the code and verifier at the `token_endpoint`, verifies the ID token (its `kid` in the
/// provider's key set, `iss`, `aud` = the desk's client id, `exp` with skew, `nonce` =
/// this sign-in's) and begins a desk session as a login link does. Every refusal is a page
/// with one sentence; nothing is signed in by a token the desk did not ask for.
struct DeskProviderSignIn: Sendable {
    static let cookieName = "tilawa_desk_oidc"
    static let cookiePath = "/desk/oidc"
    static let cookieLifetime = 600

    let issuer: String
    let clientId: String
    /// The provider's name on the sign-in button.
    let name: String
    /// `desk.public_url`, when configured: the origin the provider sends the browser back to.
    let publicURL: URL?
    let secure: Bool
    let discovery: ProviderDiscovery
    /// ID tokens: the provider's keys, the desk's client id as audience.
    let idTokens: ProviderTokenVerifier

    /// The sign-in for `configuration`, or nil when `oidc.desk_client_id` is not set.
    init?(configuration: TilawaConfiguration, clock: @escaping @Sendable () -> Date) {
        guard let oidc = configuration.oidc, let clientId = oidc.deskClientId,
              let idTokens = BearerVerifier.provider(for: configuration, audience: clientId, clock: clock) else { return nil }
        issuer = oidc.issuer
        self.clientId = clientId
        name = oidc.deskName ?? URL(string: oidc.issuer)?.host ?? oidc.issuer
        publicURL = configuration.desk.publicURL
        secure = publicURL?.scheme?.lowercased() == "https"
        discovery = ProviderDiscovery(issuer: oidc.issuer, clock: clock)
        self.idTokens = idTokens
    }

    /// Where the provider sends the browser back: `<desk.public_url>/desk/oidc/callback`, or
    /// this request's own origin without one (the provider accepts only the addresses
    /// registered for the desk's client, so another host here only fails the sign-in).
    func redirectURI(for request: Request) -> String {
        if let publicURL { return publicURL.absoluteString + "/desk/oidc/callback" }
        return "\(secure ? "https" : "http")://\(request.head.authority ?? "localhost")/desk/oidc/callback"
    }

    /// One sign-in's secrets, kept in the cookie between the two steps.
    struct Attempt: Sendable, Equatable {
        var state: String
        var nonce: String
        var verifier: String

        /// Three new secrets (`DeskSecret`: 43 base64url characters each, a valid PKCE verifier).
        static func make() -> Attempt { Attempt(state: DeskSecret.make(), nonce: DeskSecret.make(), verifier: DeskSecret.make()) }

        var cookieValue: String { "\(state).\(nonce).\(verifier)" }

        init(state: String, nonce: String, verifier: String) {
            self.state = state
            self.nonce = nonce
            self.verifier = verifier
        }

        init?(cookieValue: String) {
            let parts = cookieValue.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts.allSatisfy(DeskSecret.isWellFormed) else { return nil }
            (state, nonce, verifier) = (parts[0], parts[1], parts[2])
        }

        /// The S256 code challenge of the verifier.
        var challenge: String { DeskSecret.base64URL(Data(SHA256.hash(data: Data(verifier.utf8)))) }
    }

    func cookie(_ attempt: Attempt) -> Cookie {
        Cookie(name: Self.cookieName, value: attempt.cookieValue, maxAge: Self.cookieLifetime, path: Self.cookiePath, secure: secure,
               httpOnly: true, sameSite: .lax)
    }

    var clearingCookie: Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: Self.cookiePath, secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The address to send the browser to for `attempt`.
    func authorizationURL(_ attempt: Attempt, request: Request) async throws(DeskSignInRefusal) -> String {
        let endpoints = try await discovery.endpoints()
        guard var components = URLComponents(url: endpoints.authorization, resolvingAgainstBaseURL: false) else {
            throw .providerUnreachable("its authorization endpoint is not a usable address")
        }
        let given = components.queryItems ?? []
        components.queryItems = given + [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: clientId),
            URLQueryItem(name: "redirect_uri", value: redirectURI(for: request)),
            URLQueryItem(name: "scope", value: "openid"),
            URLQueryItem(name: "state", value: attempt.state),
            URLQueryItem(name: "nonce", value: attempt.nonce),
            URLQueryItem(name: "code_challenge", value: attempt.challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        // `+` in a query value is a space to many servers: encode it.
        let query = components.percentEncodedQuery
        components.percentEncodedQuery = query?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url?.absoluteString else { throw .providerUnreachable("its authorization endpoint is not a usable address") }
        return url
    }

    /// The provider's `sub` for the code the browser brought back, or why not.
    func subject(code: String, attempt: Attempt, request: Request) async throws(DeskSignInRefusal) -> String {
        let endpoints = try await discovery.endpoints()
        var exchange = HTTPClientRequest(url: endpoints.token.absoluteString)
        exchange.method = .POST
        exchange.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        exchange.headers.add(name: "Accept", value: "application/json")
        let form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI(for: request)),
            ("client_id", clientId), ("code_verifier", attempt.verifier),
        ]
        exchange.body = .bytes(ByteBuffer(string: form.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&")))
        let body: ByteBuffer
        let status: UInt
        do {
            let response = try await HTTPClient.shared.execute(exchange, timeout: .seconds(10))
            status = response.status.code
            body = try await response.body.collect(upTo: 256 * 1024)
        } catch {
            throw .providerUnreachable("its token endpoint could not be reached")
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any]
        guard status == 200 else {
            let reason = (object?["error"] as? String).map { " (\($0))" } ?? ""
            throw .exchangeRefused("the identity provider refused to complete the sign-in\(reason)")
        }
        guard let idToken = object?["id_token"] as? String else { throw .exchangeRefused("the identity provider sent no ID token") }
        do {
            return try await idTokens.verify(idToken, nonce: attempt.nonce).subject
        } catch {
            throw .exchangeRefused("the identity provider's ID token was refused: \(error.description)")
        }
    }

    /// `application/x-www-form-urlencoded` for one value.
    static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// Why a sign-in with the provider did not complete; each a page with one sentence.
enum DeskSignInRefusal: Error, Sendable {
    /// The provider's configuration or endpoints could not be reached or read.
    case providerUnreachable(String)
    /// The code exchange or the ID token failed.
    case exchangeRefused(String)

    var problem: APIProblem {
        switch self {
        case let .providerUnreachable(detail):
            APIProblem(.badGateway, code: "oidc_provider_unreachable",
                       detail: "Signing in with the identity provider did not work: \(detail). Try again in a minute, or use a login link.")
        case let .exchangeRefused(detail):
            APIProblem(.unauthorized, code: "oidc_sign_in_refused", detail: "You are not signed in: \(detail). Start the sign-in again.")
        }
    }
}

/// The provider's endpoints from its discovery document (`<issuer>/.well-known/openid-configuration`),
/// kept an hour; a failed fetch is tried again on the next sign-in.
actor ProviderDiscovery {
    struct Endpoints: Sendable {
        var authorization: URL
        var token: URL
    }

    let issuer: String
    private let clock: @Sendable () -> Date
    private var cached: (endpoints: Endpoints, until: Date)?

    init(issuer: String, clock: @escaping @Sendable () -> Date) {
        self.issuer = issuer
        self.clock = clock
    }

    func endpoints() async throws(DeskSignInRefusal) -> Endpoints {
        if let cached, clock() < cached.until { return cached.endpoints }
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        let address = base + "/.well-known/openid-configuration"
        let body: ByteBuffer
        do {
            var request = HTTPClientRequest(url: address)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            guard response.status == .ok else { throw DeskSignInRefusal.providerUnreachable("\(address) answered \(response.status.code)") }
            body = try await response.body.collect(upTo: 256 * 1024)
        } catch let refusal as DeskSignInRefusal {
            throw refusal
        } catch {
            throw .providerUnreachable("\(address) could not be reached")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any],
              object["issuer"] as? String == issuer,
              let authorization = (object["authorization_endpoint"] as? String).flatMap(Self.webURL),
              let token = (object["token_endpoint"] as? String).flatMap(Self.webURL) else {
            throw .providerUnreachable("its configuration at \(address) does not name this issuer and its endpoints")
        }
        let endpoints = Endpoints(authorization: authorization, token: token)
        cached = (endpoints, clock().addingTimeInterval(3600))
        return endpoints
    }

    static func webURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host?.isEmpty == false else { return nil }
        return url
    }
}
