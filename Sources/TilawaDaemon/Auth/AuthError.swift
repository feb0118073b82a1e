import Foundation
import TilawaStore

/// Why a request's credentials are refused; every case but `storeFailed` is answered 401 by
/// the HTTP layer.
///
/// `code` is stable (problem+json `code`); `description` is one line a client developer can
/// act on. Reasons never include the key or the token.
public enum AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `Authorization` header, or one that is not `Bearer <token>`.
    case missingToken
    /// The token is malformed, not HS256, wrongly signed, or lacks a valid `sub`, `role` or `exp`.
    case invalidToken(reason: String)
    /// The token's `exp` is at or before the time of the request.
    case expiredToken(expiredAt: Date)
    /// An identity provider's token, valid, whose `sub` maps to no student, coach or operator;
    /// or any valid token of a student who has been erased since it was issued.
    case unknownSubject
    /// A valid token of a student or a coach who signed out everywhere (`POST
    /// …/sessions/revoke`, `tilawa token revoke`) in or after the second it was issued.
    case revokedToken
    /// The token's subject could not be looked up: the store failed (the database is down or
    /// busy). Not the token's fault, so never a 401, which would sign a phone out: the HTTP
    /// layer answers it as the store's error (503 with `Retry-After`).
    case storeFailed(StoreError)

    /// `missing_token`, `invalid_token`, `expired_token`, `unknown_subject` or `revoked_token`;
    /// the store's own code for `storeFailed`.
    public var code: String {
        switch self {
        case .missingToken: "missing_token"
        case .invalidToken: "invalid_token"
        case .expiredToken: "expired_token"
        case .unknownSubject: "unknown_subject"
        case .revokedToken: "revoked_token"
        case let .storeFailed(error): error.code
        }
    }

    /// One line saying what is wrong.
    public var description: String {
        switch self {
        case .missingToken:
            "Send the request with an \"Authorization: Bearer <token>\" header."
        case let .invalidToken(reason):
            "The bearer token is not valid: \(reason)."
        case let .expiredToken(expiredAt):
            "The bearer token expired at \(expiredAt.formatted(.iso8601)); ask for a new one."
        case .unknownSubject:
            "The bearer token is valid but names no student, coach or operator of this programme; ask the programme to add your account."
        case .revokedToken:
            "The bearer token was issued before this account's sessions were signed out everywhere; sign in again."
        case let .storeFailed(error):
            "The bearer token could not be checked just now: \(error)"
        }
    }

    /// The `WWW-Authenticate` value to send with the 401 (RFC 6750 §3).
    ///
    /// Without a token the challenge carries no error code, as RFC 6750 §3.1 asks; both a bad
    /// and an expired token are `invalid_token` there (the problem+json `code` tells them apart).
    public var challenge: String {
        switch self {
        case .missingToken:
            #"Bearer realm="tilawa""#
        case .invalidToken, .unknownSubject, .revokedToken, .storeFailed:
            #"Bearer realm="tilawa", error="invalid_token", error_description="the token is not valid""#
        case .expiredToken:
            #"Bearer realm="tilawa", error="invalid_token", error_description="the token expired""#
        }
    }
}
