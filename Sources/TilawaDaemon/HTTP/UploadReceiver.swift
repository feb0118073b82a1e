import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOFileSystem
import Synchronization
import TilawaStore

/// A request body written to `staging/`, with its size and SHA-256.
struct StagedUpload: Sendable {
    var path: String
    var bytes: Int
    var sha256: String
}

/// Streams an upload's body to a file in `staging/`, never holding it whole in memory.
///
/// The size limit is enforced from `Content-Length` before reading anything and again
/// while streaming (a chunked body has no length); past it the read stops, the partial
/// file is deleted and the connection's input is closed, so the rest is not read.
/// swift-nio's file system writes a new file under a temporary name and links it into
/// place only when complete, so a client that disconnects half-way leaves nothing behind.
struct UploadReceiver: Sendable {
    let stateDirectory: StateDirectory
    let maxBytes: Int

    /// Bytes gathered before one write to the staging file. Hummingbird's `FileIO` uses the
    /// file system's default of 512 KiB, which grows to a 1 MiB array per connection; with
    /// 64 uploads at once that alone was ~60 MB. 128 KiB is still ~130 writes for 17 MB.
    static let writeBufferBytes: Int64 = 128 * 1024

    /// 415 before reading anything when the declared media type is not audio (no type is
    /// accepted: the content decides).
    func requireAudio(_ request: Request, context: TilawaRequestContext, what: String) throws {
        if let type = request.headers[.contentType]?.lowercased(), !SubmissionRoutes.acceptsMediaType(type) {
            context.refuseBody(of: request)
            throw APIProblem.notAudio("The upload is \(type), not audio. Send the \(what) itself (audio/*).")
        }
    }

    func receive(_ request: Request, context: TilawaRequestContext, fileExtension: String) async throws -> StagedUpload {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBytes {
            context.closeInput()
            throw APIProblem.payloadTooLarge(limit: maxBytes)
        }
        let path = stateDirectory.newStagingPath(extension: fileExtension)
        let meter = UploadMeter(limit: maxBytes)
        let metered = MeteredBody(base: request.body, meter: meter)
        do {
            try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(path), options: .newFile(replaceExisting: true)) { file in
                try await file.withBufferedWriter(capacity: .bytes(Self.writeBufferBytes)) { writer in
                    _ = try await writer.write(contentsOf: metered)
                }
            }
        } catch {
            unlink(path)
            if meter.exceeded {
                context.closeInput()
                throw APIProblem.payloadTooLarge(limit: maxBytes)
            }
            // The client's side ended it (closed, stalled past the deadline, malformed framing):
            // nobody is waiting for this answer, and it is not the server's failure.
            if meter.bodyFailed {
                context.logger.notice("upload incomplete", metadata: ["received_bytes": "\(meter.result.0)", "error": "\(error)"])
                throw APIProblem.uploadIncomplete
            }
            // A write that failed with the disk (nearly) full is the disk's fault, not the upload's.
            if let free = DiskSpace.availableBytes(at: stateDirectory.root.path), free < 1024 * 1024 {
                throw APIProblem.storageFull
            }
            throw error
        }
        let (bytes, digest) = meter.result
        return StagedUpload(path: path, bytes: bytes, sha256: digest)
    }
}

/// A request body passed through an `UploadMeter` on its way to the staging file.
struct MeteredBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base
    let meter: UploadMeter

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let meter: UploadMeter

        mutating func next() async throws -> ByteBuffer? {
            let buffer: ByteBuffer?
            do {
                buffer = try await base.next()
            } catch {
                meter.noteBodyFailure()
                throw error
            }
            if let buffer { try meter.count(buffer) }
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), meter: meter)
    }
}

/// Counts and hashes the bytes of one upload as they stream past.
///
/// A `final class` holding a `Mutex` is `Sendable` on its own: the state is only reached
/// through the mutex.
final class UploadMeter: Sendable {
    private struct State {
        var bytes = 0
        var hasher = SHA256()
        var exceeded = false
        var bodyFailed = false
    }

    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds a chunk; throws once the total passes the limit.
    func count(_ buffer: ByteBuffer) throws {
        try state.withLock { state in
            state.bytes += buffer.readableBytes
            if state.bytes > limit {
                state.exceeded = true
                throw APIProblem.payloadTooLarge(limit: limit)
            }
            buffer.withUnsafeReadableBytes { state.hasher.update(bufferPointer: $0) }
        }
    }

    var exceeded: Bool { state.withLock { $0.exceeded } }

    /// Notes that reading the body failed on the client's side (as opposed to the disk).
    func noteBodyFailure() { state.withLock { $0.bodyFailed = true } }

    var bodyFailed: Bool { state.withLock { $0.bodyFailed } }

    /// Bytes seen and the hex SHA-256 of them.
    var result: (Int, String) {
        state.withLock { state in
            (state.bytes, state.hasher.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }
}

extension TilawaRequestContext {
    /// Stops reading from the client (the socket's read side is shut): the response still
    /// goes out, then the connection closes instead of draining a body we refused.
    func closeInput() {
        channel?.close(mode: .input, promise: nil)
    }

    /// Refuses an upload before its body: small bodies are drained as usual (clients that
    /// write the whole body before reading the answer then see it cleanly); a large or
    /// unknown-length one is not read at all.
    func refuseBody(of request: Request) {
        let declared = request.headers[.contentLength].flatMap(Int.init)
        if declared.map({ $0 > 1024 * 1024 }) ?? true { closeInput() }
    }
}
