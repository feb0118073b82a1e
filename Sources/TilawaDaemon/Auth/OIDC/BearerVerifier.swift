import Foundation
import TilawaCore
import TilawaStore

/// Turns a bearer token into a principal, by the token's header `alg` — never by trying one
/// path and then the other (DESIGN §10):
///
/// - `HS256`: the daemon's own token (`tilawa token issue`), while `auth.local_tokens` is on;
/// - `RS256`/`ES256`: the identity provider's access token (`ProviderTokenVerifier`), whose
///   `sub` is mapped to a principal from our records, never from a claim: a student's or a
///   coach's `subject` (students.csv, program.yaml), an operator of `oidc.ops_subjects`, or
///   with `oidc.subject_is_id` an id that has no subject of its own;
/// - anything else is refused.
///
/// A student's or a coach's token is then refused when they signed out everywhere in or after
/// the second it was issued (`revoked_token`, by `iat`; DESIGN §16), whichever path it took.
struct BearerVerifier: Sendable {
    let authority: TokenAuthority
    let localTokens: Bool
    let provider: ProviderTokenVerifier?
    let opsSubjects: [String: String]
    let subjectIsId: Bool
    let database: AppDatabase

    init(authority: TokenAuthority, configuration: TilawaConfiguration, provider: ProviderTokenVerifier?, database: AppDatabase) {
        self.authority = authority
        localTokens = configuration.auth.localTokens
        self.provider = provider
        opsSubjects = configuration.oidc?.opsSubjects ?? [:]
        subjectIsId = configuration.oidc?.subjectIsId ?? false
        self.database = database
    }

    /// The provider verifier for `configuration` (tokens for `audience`: by default the API's,
    /// `oidc.audience`; the desk's client id for its ID tokens), or nil when no provider is configured.
    static func provider(for configuration: TilawaConfiguration, audience: String? = nil,
                         clock: @escaping @Sendable () -> Date) -> ProviderTokenVerifier? {
        guard let oidc = configuration.oidc else { return nil }
        let source: ProviderTokenVerifier.Settings.Source
        if let url = oidc.jwksURL { source = .url(url) } else if let file = oidc.jwksFile { source = .file(file) } else { return nil }
        return ProviderTokenVerifier(settings: .init(issuer: oidc.issuer, audience: audience ?? oidc.audience, source: source), clock: clock)
    }

    func verify(_ token: String, now: Date) async throws(AuthError) -> Principal {
        guard token.utf8.count <= TokenAuthority.maximumTokenLength * 4 else { throw .invalidToken(reason: "it is too long") }
        switch Self.algorithm(of: token) {
        case "HS256":
            guard localTokens else { throw .invalidToken(reason: "this service accepts only the identity provider's tokens") }
            let verified = try await authority.verifiedToken(token, now: now)
            try await checkStanding(of: verified.principal, issuedAt: verified.issuedAt)
            return verified.principal
        case "RS256", "ES256":
            guard let provider else { throw .invalidToken(reason: "no identity provider is configured for RS256 or ES256 tokens") }
            let verified = try await provider.verify(token)
            let found = try await owner(forSubject: verified.subject)
            try Self.checkNotRevoked(issuedAt: verified.issuedAt, validAfter: found.validAfter)
            if found.deprovisioned { throw .unknownSubject }
            return found.principal
        default:
            throw .invalidToken(reason: "its alg is not one this service accepts")
        }
    }

    /// Refuses a local token whose student was erased since it was issued (`unknown_subject`:
    /// it names no one now, DESIGN §12), or whose student or coach signed out everywhere since
    /// (`revoked_token`); one query for both. An operator's token is not looked up.
    private func checkStanding(of principal: Principal, issuedAt: Date?) async throws(AuthError) {
        let owner: Device.Owner
        switch principal.role {
        case .student: owner = .student
        case .coach: owner = .coach
        case .ops: return
        }
        let standing: TokenStanding
        do {
            standing = try await database.tokenStanding(of: owner, id: principal.subject)
        } catch {
            throw Self.lookupFailed(error)
        }
        if standing.erased { throw .unknownSubject }
        try Self.checkNotRevoked(issuedAt: issuedAt, validAfter: standing.tokensValidAfter)
        // Turned off by the identity provider (SCIM): a token issued since names no one either.
        if standing.deprovisioned { throw .unknownSubject }
    }

    /// A failed look-up of the token's subject: the store's failure, never the token's (a 401
    /// would sign the phone out while the database is only away).
    static func lookupFailed(_ error: any Error) -> AuthError {
        .storeFailed(StoreError(error, while: "looking up a token's subject"))
    }

    /// `revoked_token` for a token issued in or before the second of its subject's last
    /// sign-out everywhere (`validAfter`), or with no `iat` at all once there was one; `iat` is
    /// in whole seconds, so a token of the revocation's own second is refused too.
    static func checkNotRevoked(issuedAt: Date?, validAfter: Date?) throws(AuthError) {
        guard let validAfter else { return }
        guard let issuedAt,
              issuedAt.timeIntervalSince1970.rounded(.down) > validAfter.timeIntervalSince1970.rounded(.down) else {
            throw .revokedToken
        }
    }

    /// Who `subject` is in our records; `unknown_subject` when no one.
    func principal(forSubject subject: String) async throws(AuthError) -> Principal {
        let found = try await owner(forSubject: subject)
        if found.deprovisioned { throw .unknownSubject }
        return found.principal
    }

    /// Who `subject` is, and for a student or a coach the instant before which their tokens are
    /// refused (sign-out everywhere), read with the subject in one transaction; `unknown_subject`
    /// when no one.
    private func owner(forSubject subject: String) async throws(AuthError) -> (principal: Principal, validAfter: Date?, deprovisioned: Bool) {
        let owner: SubjectOwner?
        do {
            owner = try await database.subjectOwnerStanding(subject, subjectIsId: subjectIsId)
        } catch {
            throw Self.lookupFailed(error)
        }
        if let owner, let role = Role(rawValue: owner.role), let principal = Principal(subject: owner.id, role: role) {
            return (principal, owner.tokensValidAfter, owner.deprovisioned)
        }
        if let name = opsSubjects[subject], let principal = Principal(subject: name, role: .ops) {
            return (principal, nil, false)
        }
        throw .unknownSubject
    }

    /// The header's `alg`, or nil for a token whose header does not read.
    static func algorithm(of token: String) -> String? {
        guard let header = token.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first,
              let data = TokenHeader.base64URLDecoded(header),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["alg"] as? String
    }
}
