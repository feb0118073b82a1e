import Foundation

/// `scim.*`: provisioning by the organisation's identity provider (SCIM 2.0, DESIGN §16), off
/// unless `scim.token_file` is given.
extension TilawaConfiguration {
    /// `scim.*`.
    public struct SCIM: Sendable, Hashable {
        /// The role a provisioned user gets when the Tilawa extension names none.
        public enum Role: String, Sendable, Hashable, CaseIterable {
            case student, coach
        }

        /// `scim.token_file`: the SCIM client's bearer token (absolute path).
        public var tokenFile: String
        /// `scim.default_role`.
        public var defaultRole: Role = .student

        public init(tokenFile: String, defaultRole: Role = .student) {
            self.tokenFile = tokenFile
            self.defaultRole = defaultRole
        }
    }

    /// The shortest SCIM token accepted, in characters: a guess must be hopeless.
    public static let minimumSCIMTokenLength = 32

    mutating func readSCIM(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let tokenFile = values.optionalText("scim.token_file")
        let role = try values.choice("scim.default_role", default: SCIM.Role.student.rawValue, among: SCIM.Role.allCases.map(\.rawValue))
        guard let tokenFile else { return }
        guard !tokenFile.text.contains("\0") else { throw values.invalid("scim.token_file", "must be a path", tokenFile) }
        scim = SCIM(tokenFile: secretLocation(tokenFile.text), defaultRole: SCIM.Role(rawValue: role) ?? .student)
    }

    /// The SCIM client's bearer token from `scim.token_file` (one trailing newline dropped), nil
    /// when SCIM is off. Read at start-up: a file that cannot be read, or holds fewer than 32
    /// characters or any that a bearer token cannot carry (RFC 6750 §2.1's `b64token`), stops
    /// the daemon (exit 78) naming the key.
    public func readSCIMToken() throws(ConfigurationError) -> [UInt8]? {
        guard let scim else { return nil }
        let token = try readSecret(path: scim.tokenFile, key: "scim.token_file")
        guard token.count >= Self.minimumSCIMTokenLength else {
            throw ConfigurationError(key: "scim.token_file", message: """
                holds \(token.count) characters; a SCIM token needs at least \(Self.minimumSCIMTokenLength) (e.g. openssl rand -hex 32)
                """)
        }
        guard Self.isBearerToken(token) else {
            throw ConfigurationError(key: "scim.token_file", message: """
                holds characters a bearer token cannot carry; use letters, digits and - . _ ~ + / (then = padding), \
                as openssl rand -hex 32 or -base64 48 prints
                """)
        }
        return token
    }

    /// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="` (RFC 6750 §2.1).
    static func isBearerToken(_ token: [UInt8]) -> Bool {
        let body = token.prefix { $0 != UInt8(ascii: "=") }
        guard !body.isEmpty, token.dropFirst(body.count).allSatisfy({ $0 == UInt8(ascii: "=") }) else { return false }
        return body.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default:
                false
            }
        }
    }
}
