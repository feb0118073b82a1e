import Crypto
import Foundation

/// Why a `Tilawa-Signature` header was refused.
public enum WebhookSignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No single integer `t`, or no well-formed `v1`.
    case malformedHeader
    /// The timestamp is this many seconds in the past (negative: in the future), beyond the tolerance.
    case outsideTolerance(seconds: TimeInterval)
    /// No `v1` is the HMAC of this body and timestamp under the secret.
    case mismatch

    /// A stable snake_case code.
    public var code: String {
        switch self {
        case .malformedHeader: "malformed_signature_header"
        case .outsideTolerance: "signature_timestamp_outside_tolerance"
        case .mismatch: "signature_mismatch"
        }
    }

    /// One line for a log.
    public var description: String {
        switch self {
        case .malformedHeader: "the Tilawa-Signature header is not t=<unix seconds>,v1=<hex HMAC-SHA256>"
        case let .outsideTolerance(seconds): "the signature's timestamp is \(Int(seconds)) s from now, beyond the tolerance"
        case .mismatch: "no v1 signature matches the body under the shared secret"
        }
    }
}
