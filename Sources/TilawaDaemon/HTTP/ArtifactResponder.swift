import Foundation
import HTTPTypes
import Hummingbird

/// Serves an immutable artifact file: `ETag`, `If-None-Match` → 304, one `Range` → 206.
///
/// Artifacts never change once written (a new recording gets a new id), so the ETag is
/// derived from the id and size, and responses may be cached privately for long.
struct ArtifactResponder: Sendable {
    let fileIO = FileIO()

    func respond(path: String, id: String, contentType: String, request: Request, context: TilawaRequestContext) async throws -> Response {
        var info = stat()
        guard stat(path, &info) == 0 else {
            context.logger.error("artifact missing", metadata: ["path": "\(path)"])
            throw APIProblem(.notFound, code: "artifact_missing", detail: "This recording's file is missing on the server; operations have been told.")
        }
        let size = Int(info.st_size)
        let etag = "\"\(id)-\(size)\""
        var headers: HTTPFields = [
            .contentType: contentType, .eTag: etag, .acceptRanges: "bytes", .cacheControl: "private, max-age=31536000, immutable",
        ]
        if let match = request.headers[.ifNoneMatch], match == "*" || match.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "") == etag
        }) {
            return Response(status: .notModified, headers: headers)
        }
        if let header = request.headers[.range] {
            switch ByteRange.parse(header, size: size) {
            case .none:
                break
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            case let .range(range):
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
                headers[.contentLength] = "\(range.count)"
                let body = try await fileIO.loadFile(path: path, range: range, context: context)
                return Response(status: .partialContent, headers: headers, body: body)
            }
        }
        headers[.contentLength] = "\(size)"
        let body = try await fileIO.loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }
}

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
