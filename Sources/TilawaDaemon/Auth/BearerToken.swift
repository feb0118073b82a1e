/// The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1, RFC 9110 §11.4).
///
/// The scheme is matched case-insensitively and must be followed by one or more spaces
/// (`1*SP`, as RFC 9110's `credentials` allows) and a non-empty token made of `b64token`
/// characters (`A-Z a-z 0-9 - . _ ~ + /`, then `=` padding). Anything else — no header,
/// another scheme, a tab, trailing whitespace — is `missing_token`: the request carries no
/// usable credentials, as opposed to a credential that fails verification (`invalid_token`).
///
/// - Parameter header: The header's value, nil when the request has none.
public func bearerToken(fromAuthorizationHeader header: String?) throws(AuthError) -> String {
    guard let header else { throw .missingToken }
    let scheme = "bearer"
    let bytes = Array(header.utf8)
    guard bytes.count > scheme.utf8.count,
          String(decoding: bytes[..<scheme.utf8.count], as: UTF8.self).lowercased() == scheme
    else { throw .missingToken }
    let rest = bytes[scheme.utf8.count...]
    let token = rest.drop { $0 == UInt8(ascii: " ") }
    guard token.count < rest.count, isB64Token(token) else { throw .missingToken }
    return String(decoding: token, as: UTF8.self)
}

/// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="` (RFC 6750 §2.1).
private func isB64Token(_ token: ArraySlice<UInt8>) -> Bool {
    let body = token.prefix { $0 != UInt8(ascii: "=") }
    guard !body.isEmpty, token.dropFirst(body.count).allSatisfy({ $0 == UInt8(ascii: "=") }) else { return false }
    return body.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }
}
