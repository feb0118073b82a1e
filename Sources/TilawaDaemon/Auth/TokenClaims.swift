import Foundation
import JWTKit

/// The payload of a Tilawa token as it is on the wire: `sub`, `role`, `exp`, `iat` (and `nbf`
/// if some other issuer set it).
///
/// Every member is optional so that a signed token missing a claim decodes, and
/// `TokenAuthority` can say which claim is missing instead of a generic decoding error.
/// `verify(using:)` checks nothing: the time checks need the caller's `now`, which jwt-kit
/// does not pass, so `TokenAuthority.verify` does them after the signature is checked.
struct TokenClaims: JWTPayload, Equatable {
    var sub: String?
    var role: String?
    var exp: ExpirationClaim?
    var iat: IssuedAtClaim?
    var nbf: NotBeforeClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
