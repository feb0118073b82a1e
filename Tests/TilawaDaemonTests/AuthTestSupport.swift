import Crypto
import Foundation
import Testing
@testable import TilawaDaemon

/// A 64-byte key, as a created key file holds (64 hex characters).
let authTestKey = Array("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff".utf8)
/// Another valid key, for the wrong-key case.
let authOtherKey = Array("ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100".utf8)
/// Tuesday 22 September 2026 16:00:00 UTC: a whole second, so `iat` equals it.
let authTestNow = Date(timeIntervalSince1970: 1_790_092_800)

/// Hand-made tokens, built without jwt-kit so the verifier is tested against bytes it did
/// not produce (any header, any payload, any algorithm).
enum CraftedToken {
    enum Signature { case hs256, hs512, none }

    /// `base64url(header).base64url(payload).signature` with the signature computed by `signature`.
    static func make(header: String, payload: String, signature: Signature, key: [UInt8] = authTestKey) -> String {
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(payload.utf8))
        let symmetric = SymmetricKey(data: key)
        let mac: Data = switch signature {
        case .hs256: Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: symmetric))
        case .hs512: Data(HMAC<SHA512>.authenticationCode(for: Data(input.utf8), using: symmetric))
        case .none: Data()
        }
        return input + "." + base64URL(mac)
    }

    /// An HS256 token with `payload`, correctly signed with `authTestKey`.
    static func hs256(_ payload: String) -> String {
        make(header: #"{"alg":"HS256","typ":"JWT"}"#, payload: payload, signature: .hs256)
    }

    /// A payload every check accepts at `authTestNow`.
    static func validPayload(sub: String = "S1001", role: String = "student") -> String {
        #"{"sub":"\#(sub)","role":"\#(role)","iat":\#(Int(authTestNow.timeIntervalSince1970)),"exp":\#(Int(authTestNow.timeIntervalSince1970) + 3600)}"#
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The JSON object of a token's `part` (0 header, 1 payload).
    static func decode(_ token: String, part: Int) throws -> [String: Any] {
        let segment = token.split(separator: ".", omittingEmptySubsequences: false)[part]
        let data = try #require(TokenHeader.base64URLDecoded(segment))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
