import Crypto
import Foundation

/// Digests of files on disk, read in blocks (never whole in memory).
enum FileDigest {
    /// The lowercase hex SHA-256 of the file at `path` (the form `UploadMeter` gives a
    /// streamed body, so the two compare).
    static func sha256Hex(path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
            hasher.update(data: block)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
