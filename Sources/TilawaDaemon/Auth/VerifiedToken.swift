import Foundation

/// A token `TokenAuthority` verified: whom it names, and when it was issued (`iat`; nil when
/// the token has none, which a token this daemon issued always has).
public struct VerifiedToken: Sendable, Hashable {
    /// The `sub` and `role` claims.
    public let principal: Principal
    /// The `iat` claim, compared with the subject's sign-out everywhere (`BearerVerifier`).
    public let issuedAt: Date?
}
