import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) import TilawaStore
import TilawaTestSupport

/// The identity provider's key set, served by a small real HTTP server the test controls.
final class JWKSServer: Sendable {
    private struct State {
        var body = Data()
        var hits = 0
        var down = false
    }

    private let state = Mutex(State())

    var hits: Int { state.withLock { $0.hits } }
    func publish(_ body: Data) { state.withLock { $0.body = body } }
    func setDown(_ down: Bool) { state.withLock { $0.down = down } }

    func serve<T>(_ body: (URL) async throws -> T) async throws -> T {
        let router = Router(context: ReceiverContext.self)
        router.get("jwks") { _, _ -> Response in
            let (data, down) = self.state.withLock { state -> (Data, Bool) in
                state.hits += 1
                return (state.body, state.down)
            }
            if down { return Response(status: .serviceUnavailable) }
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=60"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return try await serveOnLoopback(router, path: "jwks", body)
    }
}

/// DESIGN §10 and issue "ready for a real organisation", item 3: tokens signed by PyJWT (an
/// implementation independent of jwt-kit), the key set served over HTTP by the test.
@Suite("Sign-in with the identity provider: RS256 and ES256 access tokens, every way one can be wrong")
struct OIDCSignInTests {
    static let issuer = "https://id.example.org/"
    static let audience = "tilawa-api"

    struct Provider: Decodable {
        let jwks: JSONValue
        let jwksRotated: JSONValue
        let tokens: [String: String]

        enum CodingKeys: String, CodingKey {
            case jwks, tokens
            case jwksRotated = "jwks_rotated"
        }
    }

    /// Any JSON, kept to be written back.
    struct JSONValue: Decodable {
        let data: Data
        init(from decoder: any Decoder) throws {
            let any = try decoder.singleValueContainer().decode(AnyDecodable.self)
            data = try JSONSerialization.data(withJSONObject: any.value)
        }
    }

    struct AnyDecodable: Decodable {
        let value: Any
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let object = try? container.decode([String: AnyDecodable].self) {
                value = object.mapValues(\.value)
            } else if let array = try? container.decode([AnyDecodable].self) {
                value = array.map(\.value)
            } else if let string = try? container.decode(String.self) {
                value = string
            } else if let number = try? container.decode(Double.self) {
                value = number
            } else if let flag = try? container.decode(Bool.self) {
                value = flag
            } else {
                value = NSNull()
            }
        }
    }

    func provider(now: Date) async throws -> Provider {
        let python = packageRoot.appendingPathComponent(".venv-test/bin/python").path
        let script = packageRoot.appendingPathComponent("Tests/oidc/provider.py").path
        let result = try await runProcess(python, [script, Self.issuer, Self.audience, "\(Int(now.timeIntervalSince1970))"], timeout: TestTime.hangInterval)
        try #require(result.status == 0, "\(result.stderr) — run `make test-venv` first")
        return try JSONDecoder().decode(Provider.self, from: Data(result.stdout.utf8))
    }

    @Test("every case of the issue: valid, wrong issuer or audience, expiry and skew, none, confusion, PS256, kid missing or unknown, rotation, provider down, subjects")
    func cases() async throws {
        let server = JWKSServer()
        try await server.serve { url in
            let daemon = try await TestDaemon(configure: { configuration in
                configuration.oidc = .init(issuer: Self.issuer, audience: Self.audience, jwksURL: url, jwksFile: nil,
                                           opsSubjects: ["auth0|ops-amina": "amina"], subjectIsId: true)
            })
            defer { daemon.remove() }
            let provider = try await provider(now: daemon.clock.now)
            server.publish(provider.jwks.data)
            try await daemon.runtime.database.engine.write { db in
                try db.execute(sql: "UPDATE student SET subject = 'auth0|aisha' WHERE id = 'S1001'")
                try db.execute(sql: "UPDATE student SET subject = 'auth0|omar' WHERE id = 'S1002'")
                try db.execute(sql: "UPDATE coach SET subject = 'auth0|c01' WHERE id = 'C01'")
            }
            try await daemon.application().live { client in
                func get(_ uri: String, _ token: String) async throws -> LiveAnswer {
                    try await client.execute(uri: uri, method: .get, headers: [.authorization: "Bearer \(token)"])
                }
                func token(_ name: String) throws -> String { try #require(provider.tokens[name], "\(name)") }
                let timeline = "/v1/students/S1001/timeline"

                // Valid: a student (RS256), a coach (ES256), an operator, an id as subject.
                #expect(try await get(timeline, token("valid_rs256")).status == .ok)
                #expect(try await get("/v1/coaches/C01/queue", token("valid_es256")).status == .ok)
                #expect(try await get("/v1/status", token("ops")).status == .ok)
                #expect(try await get("/v1/students/S1003/timeline", token("by_id")).status == .ok)
                #expect(try await get("/v1/status", token("valid_rs256")).status == .forbidden, "the role is ours, not a claim's")
                // Skew: 30 s past exp, 30 s before nbf are inside 60 s.
                #expect(try await get(timeline, token("expired_within_skew")).status == .ok)
                #expect(try await get(timeline, token("not_yet_within_skew")).status == .ok)
                // Refused, each 401 with its code.
                for (name, code) in [("wrong_iss", "invalid_token"), ("wrong_aud", "invalid_token"), ("expired", "expired_token"),
                                     ("not_yet_valid", "invalid_token"), ("no_exp", "invalid_token"), ("alg_none", "invalid_token"),
                                     ("hs256_with_public_key", "invalid_token"), ("ps256_on_rs256_key", "invalid_token"),
                                     ("no_kid", "invalid_token"), ("es256_claiming_rsa_kid", "invalid_token"), ("bad_typ", "invalid_token"),
                                     ("wrong_key", "invalid_token"), ("unknown_sub", "unknown_subject")] {
                    let refused = try await get(timeline, token(name))
                    #expect(refused.status == .unauthorized && refused.json?["code"] as? String == code, "\(name): \(refused.status) \(refused.json ?? [:])")
                }
                // PS256 on the RS256 key did not teach the key another algorithm.
                #expect(try await get(timeline, token("valid_rs256")).status == .ok)
                // Another student's data: as if it did not exist.
                #expect(try await get(timeline, token("other_student")).status == .notFound)
                #expect(server.hits == 1, "one fetch so far, the set cached")

                // A kid not in the set: one refetch (30 s after the last), then 401; again at once: no fetch.
                daemon.clock.advance(by: 31)
                #expect(try await get(timeline, token("unknown_kid")).status == .unauthorized)
                #expect(server.hits == 2)
                #expect(try await get(timeline, token("unknown_kid")).status == .unauthorized)
                #expect(server.hits == 2, "at most one refetch every 30 s")

                // Rotation: rsa-2 is published and rsa-1 withdrawn; no restart.
                server.publish(provider.jwksRotated.data)
                daemon.clock.advance(by: 31)
                #expect(try await get(timeline, token("rotated_rs256")).status == .ok, "the new key, fetched on its unknown kid")
                #expect(server.hits == 3)
                #expect(try await get(timeline, token("valid_rs256")).status == .unauthorized, "the withdrawn key")

                // The provider is down when the set expires (max-age 60 is clamped to 5 min): the last set works.
                server.setDown(true)
                daemon.clock.advance(by: 301)
                #expect(try await get("/v1/coaches/C01/queue", token("valid_es256")).status == .ok)
                #expect(server.hits == 4, "it tried")
                let report = await daemon.api.provider?.report
                #expect(report?.lastError?.contains("503") == true, "\(String(describing: report?.lastError))")
                #expect(report?.keyCount == 2 && report?.skipped.isEmpty == true, "the rotated set has no key to skip")
                // Operations see it in the status report.
                let status = try await get("/v1/status", token("ops_es256"))
                let provider = try #require(status.json?["identity_provider"] as? [String: Any])
                #expect((provider["last_fetch_error"] as? String)?.contains("503") == true && provider["keys"] as? Int == 2)
                #expect((provider["key_set_age_seconds"] as? Int ?? 0) >= 301, "\(provider)")
            }
        }
    }

    @Test("a provider down from the start: 401 saying so, one attempt every 30 s rather than one per request, then sign-in once it is up")
    func downFromStart() async throws {
        let server = JWKSServer()
        try await server.serve { url in
            let daemon = try await TestDaemon(configure: { configuration in
                configuration.oidc = .init(issuer: Self.issuer, audience: Self.audience, jwksURL: url, jwksFile: nil, opsSubjects: [:], subjectIsId: true)
            })
            defer { daemon.remove() }
            let provider = try await provider(now: daemon.clock.now)
            server.publish(provider.jwks.data)
            server.setDown(true)
            let token = try #require(provider.tokens["by_id"])
            try await daemon.application().live { client in
                func get() async throws -> LiveAnswer {
                    try await client.execute(uri: "/v1/students/S1003/timeline", method: .get, headers: [.authorization: "Bearer \(token)"])
                }
                let refused = try await get()
                #expect(refused.status == .unauthorized && (refused.json?["detail"] as? String)?.contains("could not be fetched") == true)
                #expect(try await get().status == .unauthorized)
                #expect(server.hits == 1, "one attempt, not one per request")
                server.setDown(false)
                daemon.clock.advance(by: 31)
                #expect(try await get().status == .ok)
                #expect(server.hits == 2)
            }
        }
    }

    @Test("the key set is read key by key: keys without kid, for encryption or of another type are skipped and said, the rest work")
    func keySet() async throws {
        let provider = try await provider(now: Date())
        let set = try await ProviderKeySet.read(provider.jwks.data)
        #expect(set.algorithms == ["rsa-1": .rs256, "ec-1": .es256])
        #expect(set.skipped.count == 3)
        #expect(set.skipped.contains { $0.contains("no kid") } && set.skipped.contains { $0.contains("use enc") }
            && set.skipped.contains { $0.contains("OKP") })
        await #expect(throws: ProviderKeyError.self) { try await ProviderKeySet.read(Data("[]".utf8)) }
    }

    @Test("HS256 local tokens are refused when auth.local_tokens is false; an RS256 token without a provider is refused, never tried as HS256")
    func dispatch() async throws {
        let daemon = try await TestDaemon(configure: { $0.auth.localTokens = false })
        defer { daemon.remove() }
        let provider = try await provider(now: daemon.clock.now)
        try await daemon.application().live { client in
            let local = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: try await daemon.headers(.student, "S1001"))
            #expect(local.status == .unauthorized && (local.json?["detail"] as? String)?.contains("identity provider") == true)
            let foreign = try await client.execute(uri: "/v1/students/S1001/timeline", method: .get,
                                                   headers: [.authorization: "Bearer \(try #require(provider.tokens["valid_rs256"]))"])
            #expect(foreign.status == .unauthorized && (foreign.json?["detail"] as? String)?.contains("no identity provider") == true)
        }
    }
}
