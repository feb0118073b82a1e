import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFileSystem
import TilawaCore
import TilawaStore

/// Appending to an upload: bytes received, made durable, and counted.
extension ResumableUploads {
    /// What one append came to.
    struct Appended {
        /// The upload's progress, durable and recorded.
        var progress: UploadProgress
        /// The upload is whole (offset = length): the caller completes it.
        var isComplete: Bool { progress.isComplete }
    }

    /// Appends the body of `request` to `upload` as `plan` allows (the caller holds the
    /// upload's lock and checked the plan). Bytes that arrived before a cut connection are
    /// kept; bytes that fail `checksum` are not (460); past `plan.maxBytes` nothing of this
    /// request is kept.
    func append(_ upload: ResumableUploadRecord, plan: ResumableUploadRule.Plan, request: Request, context: TilawaRequestContext,
                checksum: UploadChecksum? = nil) async throws -> Appended {
        guard try await database.touchUpload(id: upload.id, expiresAt: api.now + settings.expiry, now: api.now) else {
            throw APIProblem.notFound("upload with this id")
        }
        try await prepareBytes(upload.id, offset: plan.startOffset)
        let path = staging.path(for: upload.id)
        var received: Int64 = 0
        var bodyEnded = true
        var overflow = false
        var hasher = checksum?.hasher()
        let watch = receiver.rateWatch(context)
        defer { watch.finish() }
        do {
            try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(path), options: .modifyFile(createIfNecessary: false)) { file in
                var pending = ByteBuffer()
                do {
                    for try await part in RateWatchedBody(base: request.body, watch: watch) {
                        if received + Int64(part.readableBytes) > plan.maxBytes {
                            overflow = true
                            break
                        }
                        part.withUnsafeReadableBytes { hasher?.update($0) }
                        received += Int64(part.readableBytes)
                        var part = part
                        pending.writeBuffer(&part)
                        if pending.readableBytes >= UploadReceiver.writeBufferBytes {
                            try await file.write(contentsOf: pending, toAbsoluteOffset: plan.startOffset + received - Int64(pending.readableBytes))
                            pending.clear()
                        }
                    }
                } catch let error as FileSystemError {
                    throw error
                } catch {
                    // The client's side ended it (closed, stalled past the deadline): what
                    // arrived is kept, so the client resumes after it.
                    bodyEnded = false
                    context.logger.notice("upload append cut", metadata: ["upload": "\(upload.id)", "received_bytes": "\(received)"])
                }
                if pending.readableBytes > 0 {
                    try await file.write(contentsOf: pending, toAbsoluteOffset: plan.startOffset + received - Int64(pending.readableBytes))
                }
                try await file.synchronize()
            }
        } catch {
            try? staging.truncate(id: upload.id, to: plan.startOffset)
            if UploadReceiver.isDiskFull(after: error, stateDirectory: api.runtime.stateDirectory) {
                context.logger.error("upload append refused: the disk is full", metadata: ["upload": "\(upload.id)", "error": "\(error)"])
                throw APIProblem.storageFull
            }
            throw error
        }
        if overflow {
            try staging.truncate(id: upload.id, to: plan.startOffset)
            context.closeInput()
            let refusal: ResumableUploadRule.Refusal = plan.length.map { .lengthMismatch(known: $0) } ?? .tooLarge(limit: maxUploadBytes)
            throw Self.problem(refusal, limit: maxUploadBytes)
        }
        if let checksum, let hasher, bodyEnded, hasher.finalize() != checksum.expected {
            try staging.truncate(id: upload.id, to: plan.startOffset)
            throw APIProblem(.init(code: 460, reasonPhrase: "Checksum Mismatch"), code: "checksum_mismatch",
                             detail: "The bytes received do not match Upload-Checksum; send this part again.")
        }
        if checksum != nil, !bodyEnded {
            // A checksum covers the whole body: part of it cannot be verified, so none is kept.
            try staging.truncate(id: upload.id, to: plan.startOffset)
            throw watch.tooSlow ? APIProblem.uploadTooSlow(receiver.minimumRate, kept: plan.startOffset) : APIProblem.uploadIncomplete
        }
        let progress: UploadProgress
        var mismatch: ResumableUploadRule.Refusal?
        switch ResumableUploadRule.progress(after: plan, received: received, bodyEnded: bodyEnded) {
        case let .success(reached): progress = reached
        case let .failure(refusal):
            progress = UploadProgress(offset: plan.startOffset + received, length: plan.length)
            mismatch = refusal
        }
        // With artifacts in a shared store the new bytes go there too before they count, so
        // that any node can resume the upload from the offset recorded next.
        var segment: UploadSegment?
        if storage.keepsUploadAppends, received > 0 {
            let stored = UploadSegment(startOffset: plan.startOffset, length: received,
                                       object: UploadSegment.objectPath(uploadId: upload.id, startOffset: plan.startOffset,
                                                                        nonce: IdentifierGenerator.make("seg", now: api.now)))
            do {
                let range = plan.startOffset..<(plan.startOffset + received)
                let storage = storage
                try await api.pool.run { try storage.write(file: path, range: range, to: stored.object) }
            } catch {
                try? staging.truncate(id: upload.id, to: plan.startOffset)
                throw error
            }
            segment = stored
        }
        let now = api.now
        guard try await database.recordUploadProgress(id: upload.id, from: plan.startOffset, progress: progress, segment: segment,
                                                      expiresAt: now + settings.expiry, now: now) else {
            // Another node recorded first (or the upload ended meanwhile): these bytes do not count.
            try? staging.truncate(id: upload.id, to: plan.startOffset)
            if let segment { let storage = storage; try? await api.pool.run { storage.remove(segment.object) } }
            if let current = try await database.resumableUpload(id: upload.id), current.state == .receiving {
                throw Self.problem(.offsetMismatch(current: current.offset), limit: maxUploadBytes)
            }
            throw APIProblem.notFound("upload with this id")
        }
        if segment != nil { try? staging.markVerified(id: upload.id, offset: progress.offset) }
        api.metrics.uploadBytes.increment(by: received)
        if let mismatch { throw Self.problem(mismatch, limit: maxUploadBytes) }
        // A body cut after its last byte still completes the upload: the caller judges it.
        if !bodyEnded, !progress.isComplete {
            throw watch.tooSlow ? APIProblem.uploadTooSlow(receiver.minimumRate, kept: progress.offset) : APIProblem.uploadIncomplete
        }
        return Appended(progress: progress)
    }

    /// Makes the local file of upload `id` hold exactly its first `offset` recorded bytes. With
    /// artifacts in a shared store the bytes other nodes recorded are fetched from there.
    func prepareBytes(_ id: String, offset: Int64) async throws {
        let storage = storage
        guard storage.keepsUploadAppends else {
            try staging.prepare(id: id, offset: offset)
            return
        }
        let segments = offset > staging.verifiedOffset(id: id) ? try await database.uploadSegments(id: id) : []
        let staging = staging
        try await api.pool.run { try staging.restore(id: id, offset: offset, segments: segments, from: storage) }
    }

    /// Removes an upload's bytes: its local file and, in a shared store, its appends' objects.
    func removeBytes(_ id: String) async {
        staging.remove(id: id)
        let storage = storage
        guard storage.keepsUploadAppends else { return }
        do {
            try await api.pool.run { try storage.removeAll(under: UploadSegment.folder(of: id)) }
        } catch {
            // The sweep removes them later (an upload's folder outlives its row by an hour at most).
            Logger(label: "tilawa.uploads").notice("upload segments not removed", metadata: ["upload": "\(id)", "error": "\(error)"])
        }
    }

    /// The problem for a refused append.
    static func problem(_ refusal: ResumableUploadRule.Refusal, limit: Int64) -> APIProblem {
        switch refusal {
        case let .offsetMismatch(current):
            APIProblem(.conflict, code: refusal.code, detail: "The upload is at byte \(current); send from there.",
                       headers: [.uploadOffset: "\(current)"])
        case let .lengthMismatch(known):
            APIProblem(.conflict, code: refusal.code, detail: "The upload is \(known) bytes long; this request does not fit that length.")
        case .tooLarge:
            APIProblem.payloadTooLarge(limit: Int(limit))
        case .alreadyComplete:
            APIProblem(.conflict, code: refusal.code, detail: "Every byte of this upload has arrived; ask the upload's address for its outcome.")
        }
    }
}
