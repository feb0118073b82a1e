import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// A small OpenID provider the tests run (the outside world the desk signs in with): its
/// discovery document, an authorization endpoint that signs in whoever the test says at
/// once, a token endpoint that checks the code, the redirect address, the client and the
/// PKCE verifier (S256) and answers an ES256 ID token, and its key set.
final class DeskIdentityProvider: Sendable {
    struct Grant: Sendable {
        var nonce: String
        var challenge: String
        var redirect: String
        var clientId: String
        var subject: String
        var used = false
    }

    private struct State {
        var subject = "idp|c01"
        var grants: [String: Grant] = [:]
        /// Misbehaviour on demand: an ID token with another nonce.
        var wrongNonce = false
        var base = ""
    }

    private let state = Mutex(State())
    private let key = P256.Signing.PrivateKey()
    static let kid = "desk-es-1"

    var base: String { state.withLock { $0.base } }
    func signIn(as subject: String) { state.withLock { $0.subject = subject } }
    func answerWrongNonce(_ on: Bool) { state.withLock { $0.wrongNonce = on } }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func query(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            fields[String(parts[0])] = String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return fields
    }

    /// The authorization endpoint's answer to `query`: where it sends the browser back (with
    /// a code and the state), or nil for a request it refuses.
    func authorize(_ query: [String: String]) -> String? {
        guard query["response_type"] == "code", query["code_challenge_method"] == "S256", query["scope"]?.split(separator: " ").contains("openid") == true,
              let client = query["client_id"], let redirect = query["redirect_uri"], let challenge = query["code_challenge"],
              let state = query["state"], let nonce = query["nonce"] else { return nil }
        let code = Self.base64URL(SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) })
        self.state.withLock {
            $0.grants[code] = Grant(nonce: nonce, challenge: challenge, redirect: redirect, clientId: client, subject: $0.subject)
        }
        var components = URLComponents(string: redirect)
        components?.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state)]
        return components?.string
    }

    /// The token endpoint: an ID token for a good code, once; `invalid_grant` otherwise.
    func token(_ form: [String: String]) -> (Int, String) {
        let found = state.withLock { state -> (Grant, Bool)? in
            guard let code = form["code"], let grant = state.grants[code] else { return nil }
            state.grants[code]?.used = true
            return (grant, state.wrongNonce)
        }
        guard let (grant, wrongNonce) = found, !grant.used, form["grant_type"] == "authorization_code",
              form["redirect_uri"] == grant.redirect, form["client_id"] == grant.clientId, let verifier = form["code_verifier"],
              Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8)))) == grant.challenge else {
            return (400, #"{"error": "invalid_grant"}"#)
        }
        let now = Int(Date().timeIntervalSince1970)
        let header = #"{"alg":"ES256","kid":"\#(Self.kid)","typ":"JWT"}"#
        let claims: [String: Any] = ["iss": base, "aud": grant.clientId, "sub": grant.subject, "iat": now, "exp": now + 300,
                                     "nonce": wrongNonce ? "another-sign-in" : grant.nonce]
        let payload = (try? JSONSerialization.data(withJSONObject: claims)) ?? Data()
        let input = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(payload)
        guard let signature = try? key.signature(for: Data(input.utf8)) else { return (500, "{}") }
        let token = input + "." + Self.base64URL(signature.rawRepresentation)
        return (200, #"{"id_token": "\#(token)", "access_token": "opaque", "token_type": "Bearer", "expires_in": 300}"#)
    }

    var jwks: String {
        let raw = key.publicKey.rawRepresentation
        let x = Self.base64URL(raw.prefix(32)), y = Self.base64URL(raw.suffix(32))
        return #"{"keys": [{"kty": "EC", "crv": "P-256", "x": "\#(x)", "y": "\#(y)", "kid": "\#(Self.kid)", "alg": "ES256", "use": "sig"}]}"#
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Serves the provider on loopback for `body`, whose argument is its issuer (`http://127.0.0.1:<port>`).
    func serve<T>(_ body: (String) async throws -> T) async throws -> T {
        let router = Router(context: ReceiverContext.self)
        router.get(".well-known/openid-configuration") { _, _ in
            let base = self.base
            return Self.json(#"{"issuer": "\#(base)", "authorization_endpoint": "\#(base)/authorize", "token_endpoint": "\#(base)/token", "jwks_uri": "\#(base)/jwks"}"#)
        }
        router.get("authorize") { request, _ in
            guard let location = self.authorize(Self.query(request.uri.query ?? "")) else { return Response(status: .badRequest) }
            return Response(status: .found, headers: [.location: location])
        }
        router.post("token") { request, _ in
            let form = Self.query(String(buffer: try await request.body.collect(upTo: 64 * 1024)))
            let (status, body) = self.token(form)
            return Self.json(body, status: .init(code: status))
        }
        router.get("jwks") { _, _ in Self.json(self.jwks) }
        return try await serveOnLoopback(router, path: "") { url in
            var base = url.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            state.withLock { $0.base = base }
            return try await body(base)
        }
    }
}

/// Issue 43, item 3: the desk signs a coach in with the organisation's identity provider
/// (authorization code with PKCE), refuses every way that can go wrong with a page, and is
/// offered on the signed-out page only when configured.
@Suite("The desk's sign-in with the identity provider (OIDC code flow with PKCE)")
struct DeskProviderSignInTests {
    static let clientId = "tilawa-desk"

    func daemon(issuer: String) async throws -> TestDaemon {
        let daemon = try await TestDaemon(configure: { configuration in
            configuration.oidc = .init(issuer: issuer, audience: "tilawa-api", jwksURL: URL(string: issuer + "/jwks"), jwksFile: nil,
                                       opsSubjects: [:], subjectIsId: false, deskClientId: Self.clientId, deskName: "Example ID")
            // The signed-out page also offers asking for a new link (the browser flow uses it).
            configuration.desk.linkRequest = true
        })
        try await daemon.runtime.database.engine.write { db in
            try db.execute(sql: "UPDATE coach SET subject = 'idp|c01' WHERE id = 'C01'")
            try db.execute(sql: "UPDATE student SET subject = 'idp|aisha' WHERE id = 'S1001'")
        }
        return daemon
    }

    /// One sign-in as a browser makes it, the browser's part (following the provider's redirect) done here.
    struct Attempt {
        var cookie: String
        var callback: String
    }

    func start(_ client: LiveClient, _ provider: DeskIdentityProvider) async throws -> Attempt {
        let start = try await client.execute(uri: "/desk/oidc/start", method: .get, headers: [.accept: "text/html"])
        #expect(start.status == .found)
        let location = try #require(start.headers[.location])
        #expect(location.hasPrefix(provider.base + "/authorize?"))
        let setCookie = try #require(start.headers[values: .setCookie].first { $0.hasPrefix(DeskProviderSignIn.cookieName + "=") })
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Path=/desk/oidc"), "\(setCookie)")
        let query = DeskIdentityProvider.query(String(location.split(separator: "?", maxSplits: 1)[1]))
        #expect(query["client_id"] == Self.clientId && query["code_challenge_method"] == "S256" && query["code_challenge"]?.count == 43)
        let back = try #require(provider.authorize(query))
        let callback = try #require(URL(string: back))
        #expect(callback.path == "/desk/oidc/callback")
        return Attempt(cookie: try #require(DeskLoginPage.cookie(DeskProviderSignIn.cookieName, in: start)),
                       callback: callback.path + "?" + (callback.query ?? ""))
    }

    func callback(_ client: LiveClient, _ attempt: Attempt, path: String? = nil, cookie: String? = nil) async throws -> LiveAnswer {
        try await client.execute(uri: path ?? attempt.callback, method: .get,
                                 headers: [.accept: "text/html", .cookie: "\(DeskProviderSignIn.cookieName)=\(cookie ?? attempt.cookie)"])
    }

    @Test("a coach signs in: start, the provider, the callback, a desk session as the coach; the code once; the state, the nonce, a student's account, the provider's refusal each refused with a page; the sign-in options say so")
    func signIn() async throws {
        let provider = DeskIdentityProvider()
        try await provider.serve { issuer in
            let daemon = try await daemon(issuer: issuer)
            defer { daemon.remove() }
            try await daemon.application().live { client in
                let options = try await client.execute(uri: "/desk/sign-in", method: .get)
                #expect(options.json?["provider"] as? String == "Example ID" && options.json?["start"] as? String == "/desk/oidc/start")

                // The sign-in: a session as C01, the flow's cookie cleared.
                let attempt = try await start(client, provider)
                let done = try await callback(client, attempt)
                #expect(done.status == .seeOther && done.headers[.location] == "/desk/", "\(String(buffer: done.body))")
                let session = try #require(DeskLoginPage.cookie("tilawa_desk", in: done))
                #expect(DeskLoginPage.cookie(DeskProviderSignIn.cookieName, in: done) == "")
                let me = try await client.execute(uri: "/desk/session", method: .get, headers: [.cookie: "tilawa_desk=\(session)"])
                #expect(me.status == .ok && me.json?["coach_id"] as? String == "C01")

                // The same code again: the provider refuses it; no session.
                let replay = try await callback(client, attempt)
                #expect(replay.status == .unauthorized && DeskLoginPage.cookie("tilawa_desk", in: replay) == nil)
                #expect(String(buffer: replay.body).contains("refused to complete the sign-in"))

                // Another browser's state (or none): refused before the provider is asked.
                let other = try await start(client, provider)
                let crossed = try await callback(client, other, cookie: attempt.cookie)
                #expect(crossed.status == .badRequest && String(buffer: crossed.body).contains("not started on this browser"))
                let bare = try await client.execute(uri: other.callback, method: .get, headers: [.accept: "text/html"])
                #expect(bare.status == .badRequest && DeskLoginPage.cookie("tilawa_desk", in: bare) == nil)
                let forged = try await callback(client, other, cookie: "x.y.z")
                #expect(forged.status == .badRequest)

                // The provider said no.
                let denied = try await start(client, provider)
                let state = try #require(DeskIdentityProvider.query(String(denied.callback.split(separator: "?")[1]))["state"])
                let refusal = try await callback(client, denied, path: "/desk/oidc/callback?error=access_denied&state=\(state)")
                #expect(refusal.status == .unauthorized && String(buffer: refusal.body).contains("access_denied"))

                // An ID token for another sign-in (its nonce): refused.
                provider.answerWrongNonce(true)
                let wrong = try await start(client, provider)
                let mismatch = try await callback(client, wrong)
                #expect(mismatch.status == .unauthorized && DeskLoginPage.cookie("tilawa_desk", in: mismatch) == nil)
                #expect(String(buffer: mismatch.body).contains("nonce"))
                provider.answerWrongNonce(false)

                // A student's account at the provider is not a coach.
                provider.signIn(as: "idp|aisha")
                let student = try await callback(client, try await start(client, provider))
                #expect(student.status == .forbidden && String(buffer: student.body).contains("not a coach"))
                // Nobody we know.
                provider.signIn(as: "idp|stranger")
                let stranger = try await callback(client, try await start(client, provider))
                #expect(stranger.status == .forbidden && DeskLoginPage.cookie("tilawa_desk", in: stranger) == nil)

                // In the browser: the signed-out page offers the provider; its button signs C01 in.
                provider.signIn(as: "idp|c01")
                let base = "http://127.0.0.1:\(client.port)"
                let result = try await runProcess(DeskBrowserTests.python, [
                    DeskBrowserTests.script("desk_provider_flow.py"), base, DeskBrowserTests.shots, "Example ID",
                ], timeout: TestTime.hangInterval)
                #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
                // The page's "Ask for a new link" for C01: one desk_link_requested, to C01.
                let requested = try await daemon.runtime.database.engine.read { db in
                    try String.fetchAll(db, sql: "SELECT recipientId FROM event WHERE type = 'desk_link_requested'")
                }
                #expect(requested == ["C01"])
            }
        }
    }

    @Test("without oidc.desk_client_id nothing is offered: /desk/sign-in says none, /desk/oidc/* are 404")
    func notConfigured() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let options = try await client.execute(uri: "/desk/sign-in", method: .get)
            #expect(options.status == .ok && options.json?["provider"] is NSNull && options.json?["start"] is NSNull)
            #expect(try await client.execute(uri: "/desk/oidc/start", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/desk/oidc/callback?code=a&state=b", method: .get).status == .notFound)
        }
    }
}
