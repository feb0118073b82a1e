import Crypto
import Foundation

/// The key that seals the event feeds' cursors (`EventCursor`), derived from the JWT key.
///
/// HKDF-SHA256 (RFC 5869) of the key file's bytes with the fixed info label
/// `tilawa event cursor v1` and no salt, 64 bytes: the first 32 key the seal (the MAC), the
/// last 32 the mask that hides the position. Nothing new to deploy or keep secret, independent
/// of the tokens' HS256 key in use (a MAC made with one says nothing about the other), and the
/// same on every node sharing the key file. Rotating the JWT key invalidates the cursors
/// clients hold; they answer 400 `invalid_cursor` and the client reads the feed anew.
public struct EventCursorKey: Sendable {
    /// HKDF's info: names what the derived key is for; a new use needs a new label.
    static let info = Array("tilawa event cursor v1".utf8)

    /// Keys the cursor's MAC.
    let seal: SymmetricKey
    /// Keys the mask the position is hidden under.
    let mask: SymmetricKey

    /// The cursor key of the JWT key `secret` (the key file's bytes).
    public init(secret: [UInt8]) {
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), info: Self.info, outputByteCount: 64)
        let bytes = derived.withUnsafeBytes { Array($0) }
        seal = SymmetricKey(data: Array(bytes[..<32]))
        mask = SymmetricKey(data: Array(bytes[32...]))
    }
}
