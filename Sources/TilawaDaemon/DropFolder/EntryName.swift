import Crypto
import Foundation

/// A directory entry's name as the directory holds it: bytes, which need not be UTF-8.
struct EntryName: Hashable, Sendable {
    /// The raw name, without a terminating NUL.
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The name as text, or nil when it is not valid UTF-8.
    var text: String? { String(validating: bytes, as: UTF8.self) }

    /// The name for logs and messages: the text, or the bytes with invalid ones as `\xNN`.
    var display: String {
        if let text { return text }
        return bytes.map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
    }

    /// A stable stand-in for a name that is not UTF-8: `invalid-name-<first 12 hex digits of its SHA-256>`.
    var invalidNameStandIn: EntryName {
        let digest = SHA256.hash(data: Data(bytes)).prefix(6).map { String(format: "%02x", $0) }.joined()
        return EntryName("invalid-name-\(digest)")
    }

    /// Calls `body` with the name as a NUL-terminated C string.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
        return try terminated.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
