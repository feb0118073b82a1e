import Foundation
import HTTPTypes
import Hummingbird

/// A parsed `Range: bytes=…` header (RFC 9110 §14.2), single ranges only.
enum ByteRange: Equatable {
    /// Not a single byte range we serve: answer with the whole file (RFC 9110 allows ignoring Range).
    case none
    /// No byte of the file is in the range: 416.
    case unsatisfiable
    case range(ClosedRange<Int>)

    static func parse(_ header: String, size: Int) -> ByteRange {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .none }
        let spec = text.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .none }
        let first = parts[0].trimmingCharacters(in: .whitespaces), last = parts[1].trimmingCharacters(in: .whitespaces)
        guard first.allSatisfy(\.isASCII), last.allSatisfy(\.isASCII) else { return .none }
        if first.isEmpty {
            // Suffix: the last N bytes.
            guard let count = Int(last), count >= 0 else { return .none }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .range(max(0, size - count)...(size - 1))
        }
        guard let start = Int(first), start >= 0 else { return .none }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .range(start...(size - 1)) }
        guard let end = Int(last), end >= start else { return .none }
        return .range(start...min(end, size - 1))
    }
}
