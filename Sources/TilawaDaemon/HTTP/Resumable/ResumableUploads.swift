import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFileSystem
import TilawaCore
import TilawaStore

/// The one upload store both resumable protocols (tus 1.0, the IETF draft) speak to: uploads
/// bound at creation to a student, enrolment and slot; bytes appended durably (written,
/// fsynced, then the offset recorded, so an offset is never reported for bytes that could be
/// lost); the complete recording judged exactly as a one-shot upload is, its answer kept.
struct ResumableUploads: Sendable {
    let api: APIContext
    let receiver: UploadReceiver
    let locks: UploadLocks

    var database: AppDatabase { api.runtime.database }
    var staging: UploadStagingArea { api.runtime.stateDirectory.uploadStaging }
    var settings: TilawaConfiguration.Uploads { api.runtime.configuration.uploads }
    var maxUploadBytes: Int64 { Int64(api.runtime.configuration.http.maxUploadBytes) }
    /// Where artifacts are kept (DESIGN §13): an S3 store keeps the appends too.
    var storage: any ArtifactStorage { api.runtime.stateDirectory.artifactStore.storage }

    /// The path an upload is reached at, whichever protocol created it.
    static func path(of id: String) -> String { "/v1/uploads/\(id)" }

    // MARK: Creation

    /// What a creation request says.
    struct Creation {
        var studentId: String
        var slot: Slot
        var uploadProtocol: ResumableUploadRecord.UploadProtocol
        var length: Int64?
        var fileExtension: String
        var fileName: String?
        var recordedAt: RecordedAt?
        var idempotencyKey: String?
    }

    /// Creates an upload, or finds the one its `Idempotency-Key` created; the refusals as problems.
    func create(_ creation: Creation) async throws -> (upload: ResumableUploadRecord, isNew: Bool) {
        if let length = creation.length, length > maxUploadBytes {
            throw APIProblem.payloadTooLarge(limit: Int(maxUploadBytes))
        }
        let now = api.now
        try await sweepExpired(now: now)
        let record = ResumableUploadRecord(
            id: IdentifierGenerator.make("upl", now: now), studentId: creation.studentId, enrolmentId: nil, slot: creation.slot.description,
            uploadProtocol: creation.uploadProtocol, length: creation.length, fileExtension: creation.fileExtension,
            fileName: creation.fileName, recordedAt: creation.recordedAt?.claimed, now: now, expiresAt: now + settings.expiry,
            idempotencyKey: creation.idempotencyKey, submissionId: IdentifierGenerator.make("sub", now: now))
        switch try await database.createUpload(record, maxOpenPerStudent: settings.maxOpenPerStudent, budgetBytes: settings.stagingBudgetBytes,
                                               maxUploadBytes: maxUploadBytes, now: now) {
        case let .created(upload):
            do {
                try staging.prepare(id: upload.id, offset: 0)
            } catch {
                _ = try? await database.cancelUpload(id: upload.id)
                throw error
            }
            return (upload, true)
        case let .existing(upload):
            return (upload, false)
        case .keyReused:
            throw APIProblem(.conflict, code: "idempotency_key_reused",
                             detail: "This Idempotency-Key started an upload for another week or length; use a new key for a new recording.")
        case let .tooManyOpen(limit):
            throw APIProblem(.tooManyRequests, code: "too_many_open_uploads",
                             detail: "You have \(limit) unfinished uploads; finish or cancel one before starting another.",
                             headers: [.retryAfter: "60"])
        case .budgetFull:
            throw APIProblem(.init(code: 507, reasonPhrase: "Insufficient Storage"), code: "upload_budget_full",
                             detail: "Tilawa is holding as many unfinished uploads as it has room for; try again in a few minutes.",
                             headers: [.retryAfter: "300"])
        }
    }

    // MARK: Reaching an upload

    /// The upload at the path's `id` when the caller is its student; 404 otherwise, and for an
    /// upload past its expiry (deleted there and then, with its bytes).
    func visibleUpload(_ context: TilawaRequestContext) async throws -> ResumableUploadRecord {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard let upload = try await database.resumableUpload(id: id), principal.role == .student,
              principal.subject == upload.studentId else {
            throw APIProblem.notFound("upload with this id")
        }
        if upload.expiresAt <= api.now, upload.state != .completing {
            try await sweepExpired(now: api.now)
            throw APIProblem.notFound("upload with this id (it expired)")
        }
        return upload
    }

    /// Runs `body` as the only request working on `id`; 423 when another holds it too long.
    /// An append passes its request's context: a later request for the same upload (the
    /// client reconnected) shuts that append's input instead of waiting for its deadline.
    func exclusively<T>(_ id: String, appending context: TilawaRequestContext? = nil, _ body: () async throws -> T) async throws -> T {
        let preempt: (@Sendable () -> Void)? = context.map { context in { @Sendable in context.closeInput() } }
        guard let result = try await locks.withLock(id, preempt: preempt, { try await acrossNodes(id, body) }) else {
            throw Self.busy
        }
        return result
    }

    static let busy = APIProblem(.init(code: 423, reasonPhrase: "Locked"), code: "upload_busy",
                                 detail: "Another request is writing to this upload; ask for its offset again in a moment.",
                                 headers: [.retryAfter: "1"])

    /// Runs `body` holding upload `id` among the nodes of a shared database (one process on
    /// SQLite holds it with the local lock alone). Another node's hold is asked to let go after
    /// a second, as a request here would be (`StoreSignal.uploadRelease`); past 15 s the
    /// request is told to retry. The hold lasts `uploadHoldDuration` on the wall clock and is
    /// renewed every third of it while `body` runs, so a node that dies gives it up soon after.
    /// It is not what keeps bytes exact — a node that loses it still cannot record an offset
    /// another node moved (`recordUploadProgress` compares and sets) — it keeps two nodes from
    /// receiving the same bytes at once.
    private func acrossNodes<T>(_ id: String, _ body: () async throws -> T) async throws -> T {
        let database = database
        guard database.engine.isShared else { return try await body() }
        let node = EncodeJobRunner.workerIdentity
        let asking = ContinuousClock.now + .seconds(1), deadline = ContinuousClock.now + .seconds(15)
        var asked = false
        while case let .heldElsewhere(holder) = try await database.holdUpload(id: id, holder: node, until: Date() + AppDatabase.uploadHoldDuration) {
            // A process of this host that is gone (killed, and this daemon started in its
            // place) holds it: void now, not when its hold runs out.
            if !EncodeJobRunner.isAlive(holder),
               try await database.takeOverUpload(id: id, from: holder, holder: node, until: Date() + AppDatabase.uploadHoldDuration) {
                break
            }
            if !asked, ContinuousClock.now >= asking {
                asked = true
                try? await database.engine.send(.uploadRelease, payload: id)
            }
            if ContinuousClock.now >= deadline { throw Self.busy }
            try await Task.sleep(for: .milliseconds(100))
        }
        let keeper = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(AppDatabase.uploadHoldDuration / 3))
                if Task.isCancelled { break }
                _ = try? await database.holdUpload(id: id, holder: node, until: Date() + AppDatabase.uploadHoldDuration)
            }
        }
        defer { keeper.cancel() }
        do {
            let result = try await body()
            try? await database.releaseUpload(id: id, holder: node)
            return result
        } catch {
            try? await database.releaseUpload(id: id, holder: node)
            throw error
        }
    }

    // MARK: Appending

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

    // MARK: Termination and expiry

    /// Deletes an upload and its bytes (termination); a whole upload cannot be (call under its lock).
    func cancel(_ id: String) async throws {
        guard try await database.cancelUpload(id: id) != nil else {
            switch try await database.resumableUpload(id: id)?.state {
            case .answered?:
                throw APIProblem(.conflict, code: "upload_complete",
                                 detail: "This upload is complete; to take the recording back, withdraw the submission (DELETE /v1/submissions/{id}).")
            case .completing?:
                throw APIProblem(.conflict, code: "upload_completing", detail: "This upload is being judged and can no longer be cancelled.")
            default:
                throw APIProblem.notFound("upload with this id")
            }
        }
        await removeBytes(id)
    }

    /// Deletes the uploads past their expiry with their bytes. (An append moves its upload's
    /// expiry before reading, in a transaction of its own, so it is never taken mid-append.)
    func sweepExpired(now: Date) async throws {
        for upload in try await database.deleteExpiredUploads(now: now) {
            await removeBytes(upload.id)
        }
    }
}

extension HTTPField.Name {
    static let uploadOffset = Self("Upload-Offset")!
    static let uploadLength = Self("Upload-Length")!
}
