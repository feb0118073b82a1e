import Foundation
import JWTKit
import TilawaCore

/// Issues and verifies the API's bearer tokens: JWTs signed with HS256 (DESIGN §4).
///
/// The key is the raw bytes of the key file (see `JWTKeyFile`), at least 32 of them.
/// A token must carry `alg: HS256` in its header (`none`, `HS512` and every other algorithm
/// are refused before the signature is looked at), a valid signature, and the claims `sub`
/// (an id, `[A-Za-z0-9_-]{1,64}`), `role` (`student`, `coach`, `ops`) and `exp`.
///
/// `exp` is strict: a token is accepted only while `now < exp`, with no leeway for clock
/// skew, because the daemon is the only party that both issues (through `tilawa token issue`
/// on the same host) and checks its tokens. An `nbf` claim, which Tilawa never sets, is
/// honoured if present; `iat` is what sign-out everywhere is checked against (`BearerVerifier`).
public struct TokenAuthority: Sendable {
    /// The shortest key accepted, in bytes: HS256 needs 256 bits (RFC 7518 §3.2).
    public static let minimumKeyLength = 32

    /// The longest token `verify` looks at; a longer one is refused unparsed.
    static let maximumTokenLength = 4096

    private let keys: JWTKeyCollection
    /// The key that seals event cursors, derived from the same key file (`EventCursorKey`).
    public let cursorKey: EventCursorKey

    /// An authority signing and verifying with `key`.
    ///
    /// - Throws: `ConfigurationError` for `auth.jwt_key_file` when `key` is shorter than
    ///   `minimumKeyLength` bytes.
    public init(key: [UInt8]) async throws(ConfigurationError) {
        guard key.count >= Self.minimumKeyLength else {
            throw ConfigurationError(
                key: "auth.jwt_key_file",
                message: "the key is \(key.count) bytes; HS256 needs at least \(Self.minimumKeyLength) (256 bits)")
        }
        // Integer NumericDates on the wire (RFC 7519 §2 allows fractions; integers are what
        // every other JWT library expects to see).
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .integerSecondsSince1970
        encoder.outputFormatting = .sortedKeys
        cursorKey = EventCursorKey(secret: key)
        keys = JWTKeyCollection()
        await keys.add(
            hmac: HMACKey(from: key), digestAlgorithm: .sha256,
            serializer: DefaultJWTSerializer(jsonEncoder: encoder))
    }

    /// An authority with the key of `configuration`, created at its default path if need be.
    ///
    /// - Throws: The `ConfigurationError` of `JWTKeyFile.loadOrCreate(configuration:)`.
    public init(configuration: TilawaConfiguration) async throws(ConfigurationError) {
        try await self.init(key: JWTKeyFile.loadOrCreate(configuration: configuration))
    }

    /// A signed token for `subject` in `role`, valid from `now` for `ttl`.
    ///
    /// `iat` is `now` and `exp` is `now + ttl`, both in whole seconds (`now` rounded down).
    /// No roster is consulted: an operator may issue a token before the student is imported.
    ///
    /// - Throws: `TokenIssueError` for an invalid subject or a TTL that is not a positive
    ///   whole number of seconds; jwt-kit's error if signing fails.
    public func issue(subject: String, role: Role, ttl: TimeInterval, now: Date) async throws -> String {
        guard Identifier.isValid(subject) else { throw TokenIssueError.invalidSubject(subject) }
        guard ttl.isFinite, ttl >= 1, ttl <= TimeInterval(Int32.max) else { throw TokenIssueError.invalidLifetime(ttl) }
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let claims = TokenClaims(
            sub: subject, role: role.rawValue,
            exp: ExpirationClaim(value: issuedAt.addingTimeInterval(ttl.rounded(.down))),
            iat: IssuedAtClaim(value: issuedAt))
        return try await keys.sign(claims)
    }

    /// The principal `token` speaks for, if it is an HS256 token signed with this key and
    /// unexpired at `now`.
    ///
    /// - Throws: `AuthError.invalidToken` (malformed, another `alg`, bad signature, a claim
    ///   missing or invalid) or `AuthError.expiredToken` (`exp <= now`).
    public func verify(_ token: String, now: Date) async throws(AuthError) -> Principal {
        try await verifiedToken(token, now: now).principal
    }

    /// `verify`, with the token's `iat` besides its principal: sign-out everywhere refuses a
    /// token by when it was issued (`BearerVerifier`).
    ///
    /// - Throws: As `verify`.
    public func verifiedToken(_ token: String, now: Date) async throws(AuthError) -> VerifiedToken {
        guard token.utf8.count <= Self.maximumTokenLength else { throw .invalidToken(reason: "it is too long") }
        try TokenHeader.check(token)
        let claims: TokenClaims
        do {
            claims = try await keys.verify(token, as: TokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .invalidToken(reason: "the signature does not match")
        } catch {
            throw .invalidToken(reason: "it is not a well-formed JWT")
        }
        guard let exp = claims.exp?.value else { throw .invalidToken(reason: "it has no exp claim") }
        guard let sub = claims.sub else { throw .invalidToken(reason: "it has no sub claim") }
        guard let roleName = claims.role else { throw .invalidToken(reason: "it has no role claim") }
        guard let role = Role(rawValue: roleName) else {
            throw .invalidToken(reason: "its role is not one of student, coach, ops")
        }
        guard let principal = Principal(subject: sub, role: role) else {
            throw .invalidToken(reason: "its sub is not a valid id")
        }
        if let notBefore = claims.nbf?.value, now < notBefore {
            throw .invalidToken(reason: "it is not valid yet (nbf)")
        }
        guard now < exp else { throw .expiredToken(expiredAt: exp) }
        return VerifiedToken(principal: principal, issuedAt: claims.iat?.value)
    }
}
