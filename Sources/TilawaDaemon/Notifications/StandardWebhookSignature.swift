import Crypto
import Foundation

/// The Standard Webhooks headers (standardwebhooks.com, "Verifying webhooks"), sent beside
/// `Tilawa-Signature` so a stock verifier works:
///
/// - `webhook-id`: the event id (the same for every retry; receivers de-duplicate on it);
/// - `webhook-timestamp`: Unix seconds of this attempt;
/// - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per
///   key separated by spaces (during a rotation, the current key's first).
///
/// The key is the secret file's bytes, as for `Tilawa-Signature`; a stock verifier is
/// configured with `whsec_` followed by the base64 of those bytes.
public enum StandardWebhookSignature {
    /// The three headers, by name.
    public static func headers(id: String, body: some DataProtocol, secrets: [[UInt8]], timestamp: Int64) -> [(String, String)] {
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        let signatures = secrets.map { secret in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret))).base64EncodedString()
        }
        return [("webhook-id", id), ("webhook-timestamp", "\(timestamp)"), ("webhook-signature", signatures.joined(separator: " "))]
    }

    /// The secret in the form Standard Webhooks libraries take: `whsec_<base64 of the key>`.
    public static func verifierSecret(_ secret: [UInt8]) -> String {
        "whsec_" + Data(secret).base64EncodedString()
    }
}
