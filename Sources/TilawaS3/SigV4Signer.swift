import Crypto
import Foundation

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`), as S3 and S3-compatible stores check it.
///
/// The request is given as its parts, already decoded: the path as the object store names it
/// (`/bucket/submissions/2026/11/x.opus`), the query items as name and value. The signer encodes
/// each once (RFC 3986's unreserved set; S3 never normalises `.` or `..` and never encodes
/// twice), sorts the query by encoded name then value, folds each header's value (trimmed, runs
/// of white space as one space, repeated names joined by commas in order) and signs every header
/// it is given. Checked against the AWS SigV4 test suite and botocore's signer (`SigV4Tests`).
public struct SigV4Signer: Sendable {
    public let credentials: S3Credentials
    public let region: String
    public let service: String

    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The SHA-256 of an empty payload, in hex.
    public static let emptyPayloadHash = payloadHash(Data())

    /// The SHA-256 of a payload, in hex (what `x-amz-content-sha256` carries).
    public static func payloadHash(_ bytes: some DataProtocol) -> String {
        hex(SHA256.hash(data: bytes))
    }
    /// What a presigned URL or a streamed body signs instead of the payload's hash.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// A request to sign: method, decoded path and query, headers (name, value) in order.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [(String, String)]
        public var headers: [(String, String)]

        public init(method: String, path: String, query: [(String, String)] = [], headers: [(String, String)] = []) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
        }
    }

    /// What signing made: the canonical request and string to sign (for tests and for the
    /// `SignatureDoesNotMatch` log line) and the `Authorization` header's value.
    public struct Signature: Sendable {
        public let canonicalRequest: String
        public let stringToSign: String
        public let authorization: String
        public let signature: String
    }

    /// Adds `x-amz-date` (and `x-amz-security-token` when the credentials carry one) to the
    /// request's headers unless present, then signs it. `host` must already be among the headers.
    /// With `contentHashHeader` (S3's rule) `x-amz-content-sha256: payloadHash` is added and signed too.
    public func sign(_ request: inout Request, payloadHash: String, date: Date, contentHashHeader: Bool = true) -> Signature {
        let amzDate = Self.amzDate(date)
        if !request.headers.contains(where: { $0.0.lowercased() == "x-amz-date" }) { request.headers.append(("x-amz-date", amzDate)) }
        if contentHashHeader, !request.headers.contains(where: { $0.0.lowercased() == "x-amz-content-sha256" }) {
            request.headers.append(("x-amz-content-sha256", payloadHash))
        }
        if let token = credentials.sessionToken, !request.headers.contains(where: { $0.0.lowercased() == "x-amz-security-token" }) {
            request.headers.append(("x-amz-security-token", token))
        }
        let (headers, signed) = Self.canonicalHeaders(request.headers)
        let canonical = [request.method, Self.canonicalPath(request.path), Self.canonicalQuery(request.query), headers, signed, payloadHash]
            .joined(separator: "\n")
        let scope = self.scope(date)
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Data(canonical.utf8)))].joined(separator: "\n")
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(date)))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKey)/\(scope), SignedHeaders=\(signed), Signature=\(signature)"
        request.headers.append(("Authorization", authorization))
        return Signature(canonicalRequest: canonical, stringToSign: stringToSign, authorization: authorization, signature: signature)
    }

    /// The query items of a presigned request for `method` on `path` at `host`, valid for
    /// `expires` seconds (1 s–7 days) from `date`: the request's own query plus the `X-Amz-*`
    /// items and the signature. Only `host` is signed; the payload is `UNSIGNED-PAYLOAD`.
    public func presignedQuery(method: String, path: String, query: [(String, String)] = [], host: String,
                               expires: Int, date: Date) -> [(String, String)] {
        var items = query
        items.append(("X-Amz-Algorithm", "AWS4-HMAC-SHA256"))
        items.append(("X-Amz-Credential", "\(credentials.accessKey)/\(scope(date))"))
        items.append(("X-Amz-Date", Self.amzDate(date)))
        items.append(("X-Amz-Expires", String(min(max(expires, 1), 604_800))))
        if let token = credentials.sessionToken { items.append(("X-Amz-Security-Token", token)) }
        items.append(("X-Amz-SignedHeaders", "host"))
        let (headers, signed) = Self.canonicalHeaders([("host", host)])
        let canonical = [method, Self.canonicalPath(path), Self.canonicalQuery(items), headers, signed, Self.unsignedPayload]
            .joined(separator: "\n")
        let stringToSign = ["AWS4-HMAC-SHA256", Self.amzDate(date), scope(date), Self.hex(SHA256.hash(data: Data(canonical.utf8)))]
            .joined(separator: "\n")
        items.append(("X-Amz-Signature", Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(date)))))
        return items
    }

    // MARK: The canonical forms

    /// `YYYYMMDD/region/service/aws4_request`.
    func scope(_ date: Date) -> String {
        "\(Self.amzDate(date).prefix(8))/\(region)/\(service)/aws4_request"
    }

    private func signingKey(_ date: Date) -> SymmetricKey {
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretKey).utf8))
        for part in [String(Self.amzDate(date).prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// Each segment of the path encoded once, `/` kept; an empty path is `/`.
    static func canonicalPath(_ path: String) -> String {
        guard !path.isEmpty else { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map { encode(String($0)) }.joined(separator: "/")
    }

    /// Names and values encoded, sorted by name then value, `name=value` joined by `&`.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        query.map { (encode($0.0), encode($0.1)) }
            .sorted { $0.0 == $1.0 ? $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// The canonical header block (each `name:value\n`) and the signed-header list.
    static func canonicalHeaders(_ headers: [(String, String)]) -> (String, String) {
        var folded: [String: [String]] = [:]
        for (name, value) in headers { folded[name.lowercased(), default: []].append(foldWhiteSpace(value)) }
        let names = folded.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let block = names.map { "\($0):\(folded[$0, default: []].joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    private static func foldWhiteSpace(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }

    /// RFC 3986 percent-encoding of everything but `A–Z a–z 0–9 - _ . ~`, in upper-case hex.
    public static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    public static func amzDate(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(secondsFromGMT: 0) ?? .current, from: date)
        func two(_ value: Int?) -> String { let v = value ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
