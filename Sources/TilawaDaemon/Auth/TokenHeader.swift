import Foundation

/// The JOSE header checks `TokenAuthority.verify` makes before the signature.
///
/// jwt-kit picks the signer from the key collection, not from the header, so a token whose
/// header says `HS512` or `none` would be checked with the HS256 key anyway; refusing any
/// `alg` but `HS256` here keeps the header honest (RFC 8725 §3.1: use only the algorithms you
/// expect). A `crit` header names extensions this verifier does not implement, so a token
/// with one is refused too (RFC 7515 §4.1.11).
enum TokenHeader {
    private struct Fields: Decodable {
        var alg: String?
        var crit: [String]?
    }

    static func check(_ token: String) throws(AuthError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidToken(reason: "it is not three dot-separated parts") }
        guard let json = base64URLDecoded(parts[0]),
              let fields = try? JSONDecoder().decode(Fields.self, from: json)
        else { throw .invalidToken(reason: "its header is not base64url JSON") }
        guard fields.alg == "HS256" else { throw .invalidToken(reason: "its alg is not HS256") }
        guard fields.crit == nil else { throw .invalidToken(reason: "it has a crit header") }
    }

    /// Unpadded base64url (RFC 7515 §2) decoded; nil for any other alphabet or padding.
    static func base64URLDecoded(_ text: Substring) -> Data? {
        guard !text.isEmpty, text.utf8.allSatisfy({ byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
