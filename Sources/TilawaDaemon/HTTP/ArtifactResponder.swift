import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import TilawaStore

/// Serves an immutable artifact file: `ETag`, `If-None-Match` → 304, one `Range` → 206.
///
/// Artifacts never change once written (a new recording gets a new id), so the ETag is
/// derived from the id and size, and responses may be cached privately for long.
struct ArtifactResponder: Sendable {
    /// - Parameter onServed: called with the byte range written to the connection and the
    ///   file's size, once the body has been written (as far as it got).
    /// - Parameter cacheControl: for a URL whose file never changes, the default; a URL whose
    ///   file may be replaced (a coach's photo) revalidates by its `ETag`.
    func respond(_ relative: String, in store: ArtifactStore, id: String, contentType: String, request: Request, context: TilawaRequestContext,
                 cacheControl: String = "private, max-age=31536000, immutable",
                 onServed: (@Sendable (Range<Int>, Int) async -> Void)? = nil) async throws -> Response {
        let storage = store.storage
        let size: Int?
        do {
            size = try await storage.size(of: relative)
        } catch {
            throw Self.unavailable(error, storage: storage, context: context)
        }
        guard let size else {
            context.logger.error("artifact missing", metadata: ["artifact": "\(relative)", "store": "\(storage.description)"])
            throw APIProblem(.notFound, code: "artifact_missing", detail: "This recording's file is missing on the server; operations have been told.")
        }
        let etag = "\"\(id)-\(size)\""
        var headers: HTTPFields = [
            .contentType: contentType, .eTag: etag, .acceptRanges: "bytes", .cacheControl: cacheControl,
        ]
        if let match = request.headers[.ifNoneMatch], match == "*" || match.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "") == etag
        }) {
            return Response(status: .notModified, headers: headers)
        }
        // RFC 9110 §13.1.5: a Range whose `If-Range` does not name this very representation
        // (strongly: another format's ETag, a weak one, or a date — these files carry no
        // Last-Modified) is ignored, so a resumed download never splices two files' bytes.
        let rangeApplies = request.headers[.ifRange].map { $0.trimmingCharacters(in: .whitespaces) == etag } ?? true
        if rangeApplies, let header = request.headers[.range] {
            switch ByteRange.parse(header, size: size) {
            case .none:
                break
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            case let .range(range):
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
                headers[.contentLength] = "\(range.count)"
                let body = try await body(of: relative, in: storage, range: range, context: context)
                return Response(status: .partialContent, headers: headers,
                                body: Self.counting(body, from: range.lowerBound, size: size, onServed: onServed))
            }
        }
        headers[.contentLength] = "\(size)"
        let body = try await body(of: relative, in: storage, range: nil, context: context)
        return Response(status: .ok, headers: headers, body: Self.counting(body, from: 0, size: size, onServed: onServed))
    }

    /// The bytes of `range` (all for nil), sent as the storage hands them over.
    private func body(of relative: String, in storage: any ArtifactStorage, range: ClosedRange<Int>?,
                      context: TilawaRequestContext) async throws -> ResponseBody {
        let bytes: ArtifactBytes
        do {
            bytes = try await storage.read(relative, range: range)
        } catch {
            throw Self.unavailable(error, storage: storage, context: context)
        }
        return ResponseBody(contentLength: bytes.count) { writer in
            try await bytes.send { buffer in try await writer.write(buffer) }
            // Without it the connection stays inside this response: the client has every
            // byte (Content-Length), but a graceful stop waits for the response forever.
            try await writer.finish(nil)
        }
    }

    private static func unavailable(_ error: any Error, storage: any ArtifactStorage, context: TilawaRequestContext) -> APIProblem {
        if error is ArtifactMissing {
            return APIProblem(.notFound, code: "artifact_missing", detail: "This recording's file is no longer on the server.")
        }
        context.logger.error("artifact store unavailable", metadata: ["store": "\(storage.description)", "error": "\(error)"])
        return .artifactStoreUnavailable
    }

    /// `body`, reporting to `onServed` how many bytes from `start` it wrote once it is done
    /// (also when the client went away part-way: what was written counts).
    static func counting(_ body: ResponseBody, from start: Int, size: Int,
                         onServed: (@Sendable (Range<Int>, Int) async -> Void)?) -> ResponseBody {
        guard let onServed else { return body }
        return ResponseBody(contentLength: body.contentLength) { writer in
            let written = Mutex(0)
            do {
                try await body.write(writer.map { buffer in
                    written.withLock { $0 += buffer.readableBytes }
                    return buffer
                })
            } catch {
                await onServed(start..<(start + written.withLock { $0 }), size)
                throw error
            }
            await onServed(start..<(start + written.withLock { $0 }), size)
        }
    }
}
