import Crypto
import Foundation

/// The `Tilawa-Signature` header of a webhook delivery (DESIGN §7) and its check.
///
/// The header is `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>">`, keyed
/// with the webhook secret's bytes (the secret file with one trailing newline dropped).
/// Signing the timestamp with the body lets a receiver refuse replays of an old delivery.
///
/// A receiver checks a delivery by:
/// 1. taking the raw request body, byte for byte, before any JSON parsing;
/// 2. splitting the header on `,` into `key=value` items, reading `t` and every `v1`
///    (unknown keys are for later schemes and are ignored);
/// 3. computing HMAC-SHA256 over `<t>.` followed by the body, with the shared secret;
/// 4. comparing it in constant time with each `v1`, and refusing a `t` more than five
///    minutes from its own clock.
///
/// `verify(header:body:secret:now:tolerance:)` does exactly this.
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Tilawa-Signature"
    /// How far a delivery's `t` may be from the receiver's clock, either way.
    public static let defaultTolerance: TimeInterval = 300

    /// The header value signing `body` at `timestamp` (Unix seconds) with `secret`.
    public static func header(body: some DataProtocol, secret: [UInt8], timestamp: Int64) -> String {
        let code = authenticationCode(body: body, secret: secret, timestamp: timestamp)
        return "t=\(timestamp),v1=\(hex(code))"
    }

    /// The header value signing `body` at the instant `now` (its whole Unix seconds).
    public static func header(body: some DataProtocol, secret: [UInt8], now: Date) -> String {
        header(body: body, secret: secret, timestamp: Int64(now.timeIntervalSince1970.rounded(.down)))
    }

    /// The header value with one `v1` per key (a rotation: `t=…,v1=<new>,v1=<old>`).
    public static func header(body: some DataProtocol, secrets: [[UInt8]], timestamp: Int64) -> String {
        "t=\(timestamp)" + secrets.map { ",v1=" + hex(authenticationCode(body: body, secret: $0, timestamp: timestamp)) }.joined()
    }

    /// Checks that `header` signs `body` with `secret` and was made within `tolerance` of `now`.
    ///
    /// Accepts the header when any of its `v1` values matches (a sender rotating its secret
    /// may send one per secret). The comparison takes the same time wherever the values differ.
    ///
    /// - Throws: `WebhookSignatureError.malformedHeader` when there is no single integer `t`
    ///   or no well-formed `v1`; `.outsideTolerance` for a stale or future timestamp;
    ///   `.mismatch` when no `v1` matches.
    public static func verify(
        header: String, body: some DataProtocol, secret: [UInt8], now: Date, tolerance: TimeInterval = defaultTolerance
    ) throws(WebhookSignatureError) {
        var timestamps: [Int64] = []
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            switch key {
            case "t":
                guard let timestamp = Int64(value) else { throw .malformedHeader }
                timestamps.append(timestamp)
            case "v1":
                // A malformed v1 beside a good one is skipped, as an unknown scheme would be.
                if let bytes = bytes(fromHex: value), bytes.count == SHA256Digest.byteCount { signatures.append(bytes) }
            default:
                continue
            }
        }
        guard timestamps.count == 1, let timestamp = timestamps.first else { throw .malformedHeader }
        guard !signatures.isEmpty else { throw .malformedHeader }
        let age = now.timeIntervalSince1970 - TimeInterval(timestamp)
        guard abs(age) <= tolerance else { throw .outsideTolerance(seconds: age) }

        let key = SymmetricKey(data: secret)
        let message = signedMessage(body: body, timestamp: timestamp)
        var matched = false
        for signature in signatures {
            // Crypto's check compares in constant time; every candidate is checked, so the
            // time taken does not say which one matched either.
            if HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: key) { matched = true }
        }
        guard matched else { throw .mismatch }
    }

    /// The HMAC-SHA256 of `"<timestamp>.<body>"` keyed with `secret`.
    static func authenticationCode(body: some DataProtocol, secret: [UInt8], timestamp: Int64) -> [UInt8] {
        let code = HMAC<SHA256>.authenticationCode(
            for: signedMessage(body: body, timestamp: timestamp), using: SymmetricKey(data: secret))
        return Array(code)
    }

    private static func signedMessage(body: some DataProtocol, timestamp: Int64) -> [UInt8] {
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: body)
        return message
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even-length hex string (either case), nil for anything else.
    private static func bytes(fromHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
