import Crypto
import Foundation
import Synchronization

/// APNs token-based authentication: an ES256 JWT (`{"alg":"ES256","kid":key id}`,
/// `{"iss":team id,"iat":seconds}`) signed with the `.p8` key Apple issued. Apple refuses a
/// token older than an hour and one refreshed more often than every 20 minutes, so one is
/// made, reused for at most 50 minutes, and made again before it ages out.
final class APNsProviderToken: Sendable {
    let key: P256.Signing.PrivateKey
    let keyId: String
    let teamId: String

    /// How long one token is reused.
    static let lifetime: TimeInterval = 50 * 60

    private let current = Mutex<(token: String, madeAt: Date)?>(nil)

    init(key: P256.Signing.PrivateKey, keyId: String, teamId: String) {
        self.key = key
        self.keyId = keyId
        self.teamId = teamId
    }

    /// The key in a `.p8` file (PKCS #8, PEM), or a sentence saying why not.
    static func loadKey(_ path: String) -> Result<P256.Signing.PrivateKey, APNsKeyProblem> {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return .failure(.unreadable(path)) }
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: text) else { return .failure(.notAKey(path)) }
        return .success(key)
    }

    /// The token to send at `now`: the one made within `lifetime`, or a new one.
    func token(now: Date) throws -> String {
        try current.withLock { cached in
            if let reused = cached, now.timeIntervalSince(reused.madeAt) < Self.lifetime, now >= reused.madeAt { return reused.token }
            let made = try make(at: now)
            cached = (made, now)
            return made
        }
    }

    /// Forgets `refused` if it is still the current token (APNs answered 403
    /// `ExpiredProviderToken`): the next send makes one. A token another send has already
    /// replaced is kept, so many sends refused at once make one new token, not one each (Apple
    /// refuses a key whose tokens change too often: `TooManyProviderTokenUpdates`).
    func discard(_ refused: String?) {
        current.withLock { cached in
            if cached?.token == refused { cached = nil }
        }
    }

    /// A new token issued at `instant`.
    func make(at instant: Date) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyId)"}"#
        let claims = #"{"iss":"\#(teamId)","iat":\#(Int(instant.timeIntervalSince1970))}"#
        let input = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Self.base64URL(signature.rawRepresentation)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Why a `.p8` key cannot be used.
enum APNsKeyProblem: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case notAKey(String)

    var description: String {
        switch self {
        case let .unreadable(path): "cannot read \(path)"
        case let .notAKey(path): "\(path) is not an APNs signing key (a PKCS #8 P-256 private key in PEM, as Apple's .p8 file)"
        }
    }
}
