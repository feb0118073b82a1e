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
            let principal = try await authority.verify(token, now: now)
            // A token issued before its student was erased names no one now (DESIGN §12).
            if principal.role == .student {
                let erased: Bool
                do {
                    erased = try await database.isErased(studentId: principal.subject)
                } catch {
                    throw .invalidToken(reason: "its subject could not be looked up")
                }
                if erased { throw .unknownSubject }
            }
            return principal
        case "RS256", "ES256":
            guard let provider else { throw .invalidToken(reason: "no identity provider is configured for RS256 or ES256 tokens") }
            let verified = try await provider.verify(token)
            return try await principal(forSubject: verified.subject)
        default:
            throw .invalidToken(reason: "its alg is not one this service accepts")
        }
    }

    /// Who `subject` is in our records; `unknown_subject` when no one.
    func principal(forSubject subject: String) async throws(AuthError) -> Principal {
        let owner: (role: String, id: String)?
        do {
            owner = try await database.subjectOwner(subject, subjectIsId: subjectIsId)
        } catch {
            throw .invalidToken(reason: "its subject could not be looked up")
        }
        if let owner, let role = Role(rawValue: owner.role), let principal = Principal(subject: owner.id, role: role) {
            return principal
        }
        if let name = opsSubjects[subject], let principal = Principal(subject: name, role: .ops) {
            return principal
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
