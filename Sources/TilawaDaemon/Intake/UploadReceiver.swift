import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOFileSystem
import Synchronization
import TilawaStore

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
    let slots: UploadSlots

    /// The slowest pace a body may keep; nil for none.
    var minimumRate: MinimumBodyRate? = nil

    /// Runs `body` holding an upload slot of the verified caller's share (`UploadSlots`):
    /// 429 `too_many_uploads_for_you` past the caller's own share, 503 `too_many_uploads`
    /// past the pool, both with `Retry-After` and `Connection: close` before the body is read.
    /// The refused body is not shut out as other refusals' are: a client that sends its body
    /// without waiting for `100 Continue` (a phone's upload task) would see the connection
    /// reset mid-send instead of the answer it must retry after; the closing connection
    /// lingers instead, dropping what still arrives (`UploadStreamGuard`). A client that waits
    /// for `100 Continue` sends nothing.
    func withSlot<T>(_ request: Request, context: TilawaRequestContext, _ body: () async throws -> T) async throws -> T {
        let principal = try context.requirePrincipal()
        switch slots.acquire(for: principal) {
        case nil: break
        case .poolFull?: throw Self.tooManyUploads(limit: slots.limit)
        case .principalFull?: throw Self.tooManyUploadsForYou(limit: slots.perPrincipal)
        }
        defer { slots.release(for: principal) }
        return try await body()
    }

    /// 503 past the cap (also written by `UploadAdmissionHandler` at the request head).
    static func tooManyUploads(limit: Int) -> APIProblem {
        APIProblem(.serviceUnavailable, code: "too_many_uploads",
                   detail: "Tilawa is receiving \(limit) recordings right now; yours will be taken in a few seconds.",
                   headers: [.retryAfter: "5", .connection: "close"])
    }

    /// 429 past one caller's share of the slots.
    static func tooManyUploadsForYou(limit: Int) -> APIProblem {
        APIProblem(.tooManyRequests, code: "too_many_uploads_for_you",
                   detail: "You are already sending \(limit) recordings; wait for one of them to finish before sending another.",
                   extras: ["max_uploads": .int(limit)], headers: [.retryAfter: "10", .connection: "close"])
    }

    /// A watch over `request`'s body pace (`http.min_upload_bytes_per_second`).
    func rateWatch(_ context: TilawaRequestContext) -> BodyRateWatch {
        BodyRateWatch(rate: minimumRate, channel: context.channel)
    }

    /// Bytes gathered before one write to the staging file. Hummingbird's `FileIO` uses the
    /// file system's default of 512 KiB, which grows to a 1 MiB array per connection; with
    /// 64 uploads at once that alone was ~60 MB. 128 KiB is still ~130 writes for 17 MB.
    static let writeBufferBytes: Int64 = 128 * 1024

    /// 415 before reading anything when the declared media type is not audio (no type is
    /// accepted: the content decides).
    func requireAudio(_ request: Request, context: TilawaRequestContext, what: String) throws {
        if let type = request.headers[.contentType]?.lowercased(), !Self.acceptsMediaType(type) {
            context.refuseBody(of: request)
            throw APIProblem.notAudio("The upload is \(type), not audio. Send the \(what) itself (audio/*).")
        }
    }

    /// Whether a declared media type can be audio: `audio/*`, `application/octet-stream`, and
    /// the containers browsers label as video or application (`video/webm`, `video/mp4`, `application/ogg`).
    static func acceptsMediaType(_ type: String) -> Bool {
        let essence = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return essence.hasPrefix("audio/") || essence == "application/octet-stream" || essence == "video/webm"
            || essence == "video/mp4" || essence == "application/ogg"
    }

    func receive(_ request: Request, context: TilawaRequestContext, fileExtension: String) async throws -> StagedUpload {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBytes {
            context.closeInput()
            throw APIProblem.payloadTooLarge(limit: maxBytes)
        }
        let file = stateDirectory.newStagedFile(extension: fileExtension)
        let path = file.path
        let meter = UploadMeter(limit: maxBytes)
        let watch = rateWatch(context)
        defer { watch.finish() }
        let metered = MeteredBody(base: RateWatchedBody(base: request.body, watch: watch), meter: meter)
        do {
            try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(path), options: .newFile(replaceExisting: true)) { file in
                try await file.withBufferedWriter(capacity: .bytes(Self.writeBufferBytes)) { writer in
                    _ = try await writer.write(contentsOf: metered)
                }
            }
        } catch {
            file.discard()
            if meter.exceeded {
                context.closeInput()
                throw APIProblem.payloadTooLarge(limit: maxBytes)
            }
            if watch.tooSlow {
                context.logger.notice("upload too slow", metadata: ["received_bytes": "\(meter.result.0)"])
                throw APIProblem.uploadTooSlow(minimumRate, kept: nil)
            }
            // The client's side ended it (closed, stalled past the deadline, malformed framing):
            // nobody is waiting for this answer, and it is not the server's failure.
            if meter.bodyFailed {
                context.logger.notice("upload incomplete", metadata: ["received_bytes": "\(meter.result.0)", "error": "\(error)"])
                throw APIProblem.uploadIncomplete
            }
            // A write that failed for want of room, or with the disk (nearly) full, is the disk's
            // fault, not the upload's: 507 with Retry-After, never a 500.
            if Self.isDiskFull(after: error, stateDirectory: stateDirectory) {
                context.logger.error("upload refused: the disk is full", metadata: ["error": "\(error)"])
                throw APIProblem.storageFull
            }
            throw error
        }
        if watch.tooSlow {
            // Cut for its pace: whatever the stream said at its end, the body is not whole.
            file.discard()
            throw APIProblem.uploadTooSlow(minimumRate, kept: nil)
        }
        let (bytes, digest) = meter.result
        return StagedUpload(file: file, bytes: bytes, sha256: digest)
    }

    /// Whether a staging write's `error` is the disk's: ENOSPC or EDQUOT, or any failure with
    /// less than 1 MiB left.
    static func isDiskFull(after error: any Error, stateDirectory: StateDirectory) -> Bool {
        if OutOfSpace.caused(error) { return true }
        return DiskSpace.availableBytes(at: stateDirectory.root.path).map { $0 < 1024 * 1024 } ?? false
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
    /// unknown-length one is not read at all. A request with neither `Content-Length` nor
    /// `Transfer-Encoding` has no body (RFC 9112 §6.3): its connection stays as it is.
    func refuseBody(of request: Request) {
        let declared = request.headers[.contentLength].flatMap(Int.init)
        let framed = request.headers[.transferEncoding] != nil
        guard declared != nil || framed else { return }
        if framed || declared.map({ $0 > 1024 * 1024 }) ?? true { closeInput() }
    }
}
