import Foundation
import HTTPTypes

/// The wire vocabulary of tus 1.0.0 (https://tus.io/protocols/resumable-upload): the headers,
/// the capabilities this server offers, and the `Upload-Metadata` and `Upload-Expires` formats.
enum TusProtocol {
    static let version = "1.0.0"
    /// core is implied; `creation-defer-length` and `concatenation` are not offered.
    static let extensions = "creation,creation-with-upload,termination,expiration,checksum"
    static let checksumAlgorithms = UploadChecksum.Algorithm.allCases.map(\.rawValue).joined(separator: ",")
    static let patchMediaType = "application/offset+octet-stream"

    /// The headers every tus response carries.
    static var resumable: HTTPFields { [.tusResumable: version] }

    /// `Upload-Metadata`: comma-separated `key base64value` pairs (a value may be absent).
    /// Nil when malformed: a key that is empty or repeated, a value that is not base64.
    static func metadata(_ header: String?) -> [String: String]? {
        guard let header, !header.trimmingCharacters(in: .whitespaces).isEmpty else { return [:] }
        var pairs: [String: String] = [:]
        for item in header.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard (1...2).contains(parts.count), pairs[String(parts[0])] == nil else { return nil }
            if parts.count == 1 {
                pairs[String(parts[0])] = ""
                continue
            }
            guard let data = Data(base64Encoded: String(parts[1])) else { return nil }
            pairs[String(parts[0])] = String(decoding: data, as: UTF8.self)
        }
        return pairs
    }

    /// `Upload-Expires` as an RFC 9110 IMF-fixdate.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// A non-negative decimal header value (`Upload-Length`, `Upload-Offset`); nil otherwise.
    static func count(_ value: String?) -> Int64? {
        guard let value, !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(value)
    }
}

extension HTTPField.Name {
    static let tusResumable = Self("Tus-Resumable")!
    static let tusVersion = Self("Tus-Version")!
    static let tusExtension = Self("Tus-Extension")!
    static let tusMaxSize = Self("Tus-Max-Size")!
    static let tusChecksumAlgorithm = Self("Tus-Checksum-Algorithm")!
    static let uploadMetadata = Self("Upload-Metadata")!
    static let uploadDeferLength = Self("Upload-Defer-Length")!
    static let uploadExpires = Self("Upload-Expires")!
    static let uploadChecksum = Self("Upload-Checksum")!
    static let link = Self("Link")!
}
