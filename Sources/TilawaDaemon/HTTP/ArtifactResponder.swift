import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import TilawaS3
import TilawaStore

/// Serves an immutable artifact file: `ETag`, `If-None-Match` → 304, one `Range` → 206.
///
/// Artifacts never change once written (a new recording gets a new id), so the ETag is
/// derived from the id and size, and responses may be cached privately for long.
struct ArtifactResponder: Sendable {
    let fileIO = FileIO()

    /// Where the bytes are: a file, or an object of the S3 store artifacts live in (proxied:
    /// the phone and the desk speak to Tilawa only, and the store needs no public address).
    enum Source: Sendable {
        case file(String)
        case remote(S3ArtifactRemote, String)
    }

    /// The artifact `relative` of `store`, wherever the store keeps it.
    static func source(_ relative: String, in store: ArtifactStore) -> Source {
        if let remote = store.remote as? S3ArtifactRemote { return .remote(remote, relative) }
        return .file(store.path(relative))
    }

    func respond(path: String, id: String, contentType: String, request: Request, context: TilawaRequestContext,
                 cacheControl: String = "private, max-age=31536000, immutable",
                 onServed: (@Sendable (Range<Int>, Int) async -> Void)? = nil) async throws -> Response {
        try await respond(source: .file(path), id: id, contentType: contentType, request: request, context: context,
                          cacheControl: cacheControl, onServed: onServed)
    }

    /// - Parameter onServed: called with the byte range written to the connection and the
    ///   file's size, once the body has been written (as far as it got).
    /// - Parameter cacheControl: for a URL whose file never changes, the default; a URL whose
    ///   file may be replaced (a coach's photo) revalidates by its `ETag`.
    func respond(source: Source, id: String, contentType: String, request: Request, context: TilawaRequestContext,
                 cacheControl: String = "private, max-age=31536000, immutable",
                 onServed: (@Sendable (Range<Int>, Int) async -> Void)? = nil) async throws -> Response {
        guard let size = try await size(of: source, context: context) else {
            context.logger.error("artifact missing", metadata: ["artifact": "\(source)"])
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
                let body = try await body(of: source, range: range, context: context)
                return Response(status: .partialContent, headers: headers,
                                body: Self.counting(body, from: range.lowerBound, size: size, onServed: onServed))
            }
        }
        headers[.contentLength] = "\(size)"
        let body = try await body(of: source, range: nil, context: context)
        return Response(status: .ok, headers: headers, body: Self.counting(body, from: 0, size: size, onServed: onServed))
    }

    private func size(of source: Source, context: TilawaRequestContext) async throws -> Int? {
        switch source {
        case let .file(path):
            var info = stat()
            return stat(path, &info) == 0 ? Int(info.st_size) : nil
        case let .remote(remote, relative):
            do {
                return try await remote.size(of: relative)
            } catch {
                throw Self.unavailable(error, remote: remote, context: context)
            }
        }
    }

    /// The bytes of `range` (all for nil); from the store, streamed as it sends them, after
    /// checking it answered the range asked (a 200 for a range would splice wrong bytes).
    private func body(of source: Source, range: ClosedRange<Int>?, context: TilawaRequestContext) async throws -> ResponseBody {
        switch source {
        case let .file(path):
            if let range { return try await fileIO.loadFile(path: path, range: range, context: context) }
            return try await fileIO.loadFile(path: path, context: context)
        case let .remote(remote, relative):
            let object: S3Client.Object
            do {
                object = try await remote.read(relative, range: range)
            } catch {
                throw Self.unavailable(error, remote: remote, context: context)
            }
            guard object.status == (range == nil ? 200 : 206) else {
                throw Self.unavailable(S3Error(code: "bad_answer", message: "HTTP \(object.status) for a range"), remote: remote, context: context)
            }
            return ResponseBody(contentLength: range?.count ?? object.contentLength.map(Int.init)) { writer in
                for try await buffer in object.body { try await writer.write(buffer) }
                // Without it the connection stays inside this response: the client has every
                // byte (Content-Length), but a graceful stop waits for the response forever.
                try await writer.finish(nil)
            }
        }
    }

    private static func unavailable(_ error: any Error, remote: S3ArtifactRemote, context: TilawaRequestContext) -> APIProblem {
        if let error = error as? S3Error, error.isNotFound {
            return APIProblem(.notFound, code: "artifact_missing", detail: "This recording's file is no longer on the server.")
        }
        context.logger.error("artifact store unavailable", metadata: ["store": "\(remote.description)", "error": "\(error)"])
        return APIProblem(.serviceUnavailable, code: "artifact_store_unavailable",
                          detail: "The recordings' store does not answer just now; try again in a minute.")
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
