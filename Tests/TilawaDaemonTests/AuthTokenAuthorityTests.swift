import Foundation
import Testing
@testable import TilawaDaemon

@Suite("TokenAuthority")
struct AuthTokenAuthorityTests {
    @Test("A token issued for each role verifies to the same principal", arguments: Role.allCases)
    func roundTrip(role: Role) async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let subject = role == .ops ? "ops" : "C_07-x"
        let token = try await authority.issue(subject: subject, role: role, ttl: 3600, now: authTestNow.addingTimeInterval(0.75))
        let principal = try await authority.verify(token, now: authTestNow)
        #expect(principal.subject == subject)
        #expect(principal.role == role)
        #expect(principal == Principal(subject: subject, role: role))

        let header = try CraftedToken.decode(token, part: 0)
        #expect(header["alg"] as? String == "HS256")
        let claims = try CraftedToken.decode(token, part: 1)
        #expect(Set(claims.keys) == ["sub", "role", "iat", "exp"])
        #expect(claims["role"] as? String == role.rawValue)
        // Whole seconds on the wire, `now` rounded down.
        #expect(claims["iat"] as? Int == 1_790_092_800)
        #expect(claims["exp"] as? Int == 1_790_092_800 + 3600)
    }

    @Test("exp is strict: valid one second before, expired at exp and one second after")
    func expiry() async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let token = try await authority.issue(subject: "S1001", role: .student, ttl: 60, now: authTestNow)
        let exp = authTestNow.addingTimeInterval(60)
        #expect(try await authority.verify(token, now: exp.addingTimeInterval(-1)).subject == "S1001")
        for late in [exp, exp.addingTimeInterval(1)] {
            let error = await #expect(throws: AuthError.self) { try await authority.verify(token, now: late) }
            #expect(error == .expiredToken(expiredAt: exp))
            #expect(error?.code == "expired_token")
        }
    }

    @Test("A token signed with another key is invalid")
    func wrongKey() async throws {
        let issuer = try await TokenAuthority(key: authOtherKey)
        let verifier = try await TokenAuthority(key: authTestKey)
        let token = try await issuer.issue(subject: "S1001", role: .student, ttl: 3600, now: authTestNow)
        #expect(try await issuer.verify(token, now: authTestNow).subject == "S1001")
        let error = await #expect(throws: AuthError.self) { try await verifier.verify(token, now: authTestNow) }
        #expect(error == .invalidToken(reason: "the signature does not match"))
    }

    @Test("A payload changed after signing is invalid")
    func tamperedPayload() async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let token = try await authority.issue(subject: "S1001", role: .student, ttl: 3600, now: authTestNow)
        let parts = token.split(separator: ".").map(String.init)
        var claims = try CraftedToken.decode(token, part: 1)
        claims["role"] = "ops"
        let forged = try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        let tampered = [parts[0], CraftedToken.base64URL(forged), parts[2]].joined(separator: ".")
        let error = await #expect(throws: AuthError.self) { try await authority.verify(tampered, now: authTestNow) }
        #expect(error?.code == "invalid_token")
        // A flipped signature character is refused too.
        var signature = Array(parts[2])
        signature[4] = signature[4] == "A" ? "B" : "A"
        let resigned = [parts[0], parts[1], String(signature)].joined(separator: ".")
        let resignedError = await #expect(throws: AuthError.self) { try await authority.verify(resigned, now: authTestNow) }
        #expect(resignedError == .invalidToken(reason: "the signature does not match"))
    }

    @Test("The crafting helper makes tokens the verifier accepts, so the refusals below are about their one defect")
    func craftedControl() async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let principal = try await authority.verify(CraftedToken.hs256(CraftedToken.validPayload()), now: authTestNow)
        #expect(principal.subject == "S1001" && principal.role == .student)
        // jwt-kit checks the signature with the HS256 key whatever the header says: this
        // token's MAC is right, only its header lies, and the header check must refuse it.
        let lyingHeader = CraftedToken.make(header: #"{"alg":"HS512","typ":"JWT"}"#, payload: CraftedToken.validPayload(), signature: .hs256)
        let error = await #expect(throws: AuthError.self) { try await authority.verify(lyingHeader, now: authTestNow) }
        #expect(error == .invalidToken(reason: "its alg is not HS256"))
    }

    struct Forgery: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String
        var testDescription: String { name }
    }

    @Test("Only HS256 is accepted", arguments: [
        Forgery(name: "alg none, no signature", token: CraftedToken.make(
            header: #"{"alg":"none","typ":"JWT"}"#, payload: CraftedToken.validPayload(), signature: .none)),
        Forgery(name: "alg None", token: CraftedToken.make(
            header: #"{"alg":"None"}"#, payload: CraftedToken.validPayload(), signature: .none)),
        Forgery(name: "alg none with an HS256 MAC", token: CraftedToken.make(
            header: #"{"alg":"none"}"#, payload: CraftedToken.validPayload(), signature: .hs256)),
        Forgery(name: "HS512 with the same key", token: CraftedToken.make(
            header: #"{"alg":"HS512","typ":"JWT"}"#, payload: CraftedToken.validPayload(), signature: .hs512)),
        Forgery(name: "lower-case hs256", token: CraftedToken.make(
            header: #"{"alg":"hs256"}"#, payload: CraftedToken.validPayload(), signature: .hs256)),
        Forgery(name: "no alg", token: CraftedToken.make(
            header: #"{"typ":"JWT"}"#, payload: CraftedToken.validPayload(), signature: .hs256)),
        Forgery(name: "RS256", token: CraftedToken.make(
            header: #"{"alg":"RS256"}"#, payload: CraftedToken.validPayload(), signature: .hs256)),
        Forgery(name: "crit header", token: CraftedToken.make(
            header: #"{"alg":"HS256","crit":["exp"]}"#, payload: CraftedToken.validPayload(), signature: .hs256)),
    ])
    func algorithms(_ forgery: Forgery) async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let error = await #expect(throws: AuthError.self) { try await authority.verify(forgery.token, now: authTestNow) }
        #expect(error?.code == "invalid_token")
    }

    struct Claims: Sendable, CustomTestStringConvertible {
        let name: String
        let payload: String
        let reason: String
        var testDescription: String { name }
    }

    private static let iat = Int(authTestNow.timeIntervalSince1970)

    @Test("Signed tokens with a missing or bad claim are invalid", arguments: [
        Claims(name: "missing exp", payload: #"{"sub":"S1001","role":"student","iat":\#(iat)}"#, reason: "it has no exp claim"),
        Claims(name: "missing sub", payload: #"{"role":"student","exp":\#(iat + 60)}"#, reason: "it has no sub claim"),
        Claims(name: "missing role", payload: #"{"sub":"S1001","exp":\#(iat + 60)}"#, reason: "it has no role claim"),
        Claims(name: "unknown role", payload: CraftedToken.validPayload(role: "admin"), reason: "its role is not one of student, coach, ops"),
        Claims(name: "role in capitals", payload: CraftedToken.validPayload(role: "OPS"), reason: "its role is not one of student, coach, ops"),
        Claims(name: "sub with a path", payload: CraftedToken.validPayload(sub: "../etc"), reason: "its sub is not a valid id"),
        Claims(name: "empty sub", payload: CraftedToken.validPayload(sub: ""), reason: "its sub is not a valid id"),
        Claims(name: "sub of 65 characters", payload: CraftedToken.validPayload(sub: String(repeating: "a", count: 65)), reason: "its sub is not a valid id"),
        Claims(name: "exp as a string", payload: #"{"sub":"S1001","role":"student","exp":"tomorrow"}"#, reason: "it is not a well-formed JWT"),
        Claims(name: "role as a number", payload: #"{"sub":"S1001","role":1,"exp":\#(iat + 60)}"#, reason: "it is not a well-formed JWT"),
        Claims(name: "payload not JSON", payload: "student S1001", reason: "it is not a well-formed JWT"),
        Claims(name: "nbf in the future", payload: #"{"sub":"S1001","role":"student","exp":\#(iat + 60),"nbf":\#(iat + 1)}"#, reason: "it is not valid yet (nbf)"),
    ])
    func claims(_ claims: Claims) async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let error = await #expect(throws: AuthError.self) { try await authority.verify(CraftedToken.hs256(claims.payload), now: authTestNow) }
        #expect(error == .invalidToken(reason: claims.reason))
    }

    @Test("A token whose exp has passed is expired, not invalid, even when crafted", arguments: [1, 3600])
    func craftedExpired(secondsAgo: Int) async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let exp = Self.iat - secondsAgo
        let token = CraftedToken.hs256(#"{"sub":"S1001","role":"student","exp":\#(exp)}"#)
        let error = await #expect(throws: AuthError.self) { try await authority.verify(token, now: authTestNow) }
        #expect(error == .expiredToken(expiredAt: Date(timeIntervalSince1970: TimeInterval(exp))))
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String
        var testDescription: String { name }
    }

    @Test("Malformed tokens are invalid", arguments: [
        Malformed(name: "empty", token: ""),
        Malformed(name: "one part", token: "abc"),
        Malformed(name: "two parts", token: "eyJhbGciOiJIUzI1NiJ9.e30"),
        Malformed(name: "four parts", token: "a.b.c.d"),
        Malformed(name: "only dots", token: ".."),
        Malformed(name: "header not base64url", token: "!!!.e30.sig"),
        Malformed(name: "header not JSON", token: "YWJj.e30.AAAA"),
        Malformed(name: "empty signature", token: "eyJhbGciOiJIUzI1NiJ9.e30."),
        Malformed(name: "padded header", token: "eyJhbGciOiJIUzI1NiJ9=.e30.AAAA"),
        Malformed(name: "longer than 4096 bytes", token: "eyJhbGciOiJIUzI1NiJ9." + String(repeating: "a", count: 5000) + ".AAAA"),
    ])
    func malformed(_ malformed: Malformed) async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        let error = await #expect(throws: AuthError.self) { try await authority.verify(malformed.token, now: authTestNow) }
        #expect(error?.code == "invalid_token")
    }

    @Test("A key shorter than 32 bytes is refused, naming the configuration key")
    func shortKey() async throws {
        let error = await #expect(throws: ConfigurationError.self) { try await TokenAuthority(key: Array(repeating: 7, count: 31)) }
        #expect(error?.key == "auth.jwt_key_file")
        #expect(error?.message.contains("31 bytes") == true)
        _ = try await TokenAuthority(key: Array(repeating: 7, count: 32))
    }

    @Test("issue refuses an invalid subject or lifetime")
    func issueRefusals() async throws {
        let authority = try await TokenAuthority(key: authTestKey)
        for subject in ["", "../etc", "S 1", "é", String(repeating: "a", count: 65)] {
            await #expect(throws: TokenIssueError.invalidSubject(subject)) {
                try await authority.issue(subject: subject, role: .student, ttl: 3600, now: authTestNow)
            }
        }
        for ttl in [0, -60, .infinity, .nan] as [TimeInterval] {
            let error = await #expect(throws: TokenIssueError.self) {
                try await authority.issue(subject: "S1001", role: .student, ttl: ttl, now: authTestNow)
            }
            #expect(error?.code == "invalid_ttl")
        }
    }

    @Test("Error codes and challenges are stable")
    func errorCodes() {
        #expect(AuthError.missingToken.code == "missing_token")
        #expect(AuthError.invalidToken(reason: "x").code == "invalid_token")
        #expect(AuthError.expiredToken(expiredAt: authTestNow).code == "expired_token")
        #expect(AuthError.unknownSubject.code == "unknown_subject")
        #expect(AuthError.revokedToken.code == "revoked_token")
        #expect(AuthError.revokedToken.challenge.contains(#"error="invalid_token""#))
        #expect(AuthError.missingToken.challenge == #"Bearer realm="tilawa""#)
        #expect(AuthError.expiredToken(expiredAt: authTestNow).challenge.contains(#"error="invalid_token""#))
        #expect(AuthError.expiredToken(expiredAt: authTestNow).description.contains("2026-09-22T16:00:00Z"))
    }
}
