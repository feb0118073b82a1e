import Crypto
import Foundation

/// The random secrets of the desk's sign-in: login links, session cookies, CSRF tokens.
///
/// 32 random bytes (256 bits) from the system's generator, as unpadded base64url (43
/// characters: safe in a URL, a form field and a cookie value). The database keeps only
/// `hash(_:)` of a link or session secret, so a copy of it signs nobody in.
enum DeskSecret {
    /// A new secret.
    static func make() -> String {
        base64URL(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    /// `data` as unpadded base64url (RFC 4648 §5).
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Whether `text` has a secret's shape (43 base64url characters): anything else is refused
    /// before the database is asked.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// The lowercase hex SHA-256 of `secret`, as stored.
    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether two secrets are equal, in time that does not depend on where they differ.
    static func matches(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
