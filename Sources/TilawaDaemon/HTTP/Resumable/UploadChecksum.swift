import Crypto
import Foundation

/// tus's `Upload-Checksum: <algorithm> <base64 digest>` of one `PATCH` body (the checksum
/// extension): `sha1` (the one the extension requires, and what tuspy sends) or `sha256`.
struct UploadChecksum: Sendable {
    enum Algorithm: String, Sendable, CaseIterable {
        case sha1
        case sha256
    }

    let algorithm: Algorithm
    let expected: Data

    /// Parses the header; nil with `unsupported` true for an algorithm not offered.
    static func parse(_ value: String) -> Result<UploadChecksum, ParseFailure> {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2 else { return .failure(.malformed) }
        guard let algorithm = Algorithm(rawValue: parts[0].lowercased()) else { return .failure(.unsupported) }
        guard let digest = Data(base64Encoded: String(parts[1])) else { return .failure(.malformed) }
        return .success(UploadChecksum(algorithm: algorithm, expected: digest))
    }

    enum ParseFailure: Error {
        case malformed
        case unsupported
    }

    /// A running digest of the body as it streams.
    func hasher() -> Hasher {
        switch algorithm {
        case .sha1: .sha1(Insecure.SHA1())
        case .sha256: .sha256(SHA256())
        }
    }

    enum Hasher {
        case sha1(Insecure.SHA1)
        case sha256(SHA256)

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            switch self {
            case var .sha1(hash):
                hash.update(bufferPointer: bytes)
                self = .sha1(hash)
            case var .sha256(hash):
                hash.update(bufferPointer: bytes)
                self = .sha256(hash)
            }
        }

        func finalize() -> Data {
            switch self {
            case let .sha1(hash): Data(hash.finalize())
            case let .sha256(hash): Data(hash.finalize())
            }
        }
    }
}
