import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOFileSystem
import TilawaCore
import TilawaStore

/// Completing a resumable upload: the judgement, its answer kept, and the student told of a
/// refusal they may not have seen.
extension ResumableUploads {
    // MARK: Completion

    /// Judges a complete upload exactly as a one-shot upload is judged and keeps the answer;
    /// a second call (or a request after a crash half-way) returns the same answer.
    func complete(_ id: String, logger: Logger) async throws -> UploadAnswer {
        let now = api.now
        let upload: ResumableUploadRecord
        if let started = try await database.beginUploadCompletion(id: id, now: now) {
            upload = started
        } else if let current = try await database.resumableUpload(id: id) {
            switch current.state {
            case .answered:
                return try await api.currentAnswer(status: current.answerStatus ?? 500, body: current.answerBody ?? Data(),
                                                   instance: Self.path(of: current.id))
            case .completing:
                upload = current
            case .receiving:
                throw Self.problem(.offsetMismatch(current: current.offset), limit: maxUploadBytes)
            }
        } else {
            throw APIProblem.notFound("upload with this id")
        }
        // The bytes other nodes received, fetched (artifacts in a shared store).
        if storage.keepsUploadAppends { try await prepareBytes(upload.id, offset: upload.offset) }
        let answer = if let key = upload.idempotencyKey {
            try await judgeClaiming(upload, key: key, logger: logger)
        } else {
            try await judge(upload, logger: logger)
        }
        try await database.answerUpload(id: upload.id, status: Int(answer.status.code), body: answer.body, refusal: Self.refusal(in: answer) != nil,
                                        expiresAt: api.now + settings.expiry, now: api.now)
        await removeBytes(upload.id)
        return answer
    }

    /// Tells the student of a completed upload's refusal (`submission_refused`, once per
    /// upload) when its answer is a refusal of the recording — audio (422) or a rule (409,
    /// 429) — that the client may never have seen: a tus completion (whose answer is 204 with
    /// a link) or one judged with no request waiting.
    func tellRefusal(_ answer: UploadAnswer, uploadId: String, logger: Logger) async {
        guard let (code, detail) = Self.refusal(in: answer) else { return }
        do {
            if try await database.recordUploadRefusal(uploadId: uploadId, code: code, detail: detail, now: api.now) {
                logger.notice("upload refusal sent to the student", metadata: ["upload": "\(uploadId)", "code": "\(code)"])
                api.wakeup.signal()
            }
        } catch {
            logger.error("upload refusal not recorded", metadata: ["upload": "\(uploadId)", "error": "\(error)"])
        }
    }

    /// The code and sentence of an answer that refuses the recording; nil for an acceptance
    /// and for an idempotency answer (about the request, not the recording).
    static func refusal(in answer: UploadAnswer) -> (code: String, detail: String)? {
        guard [409, 422, 429].contains(answer.status.code),
              let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
              let code = object["code"] as? String, let detail = object["detail"] as? String,
              !code.hasPrefix("idempotency_key") else { return nil }
        return (code, detail)
    }

    /// `response`, the answer to a completing request that carries the refusal itself. The
    /// refusal is owed to the student until its last byte is written to the connection; one
    /// never written (the phone gone first, the process killed) is told as
    /// `submission_refused` by the minute tick (`recordOwedUploadRefusals`).
    func answering(_ response: Response, answer: UploadAnswer, uploadId: String, context: TilawaRequestContext) async -> Response {
        guard Self.refusal(in: answer) != nil else { return response }
        let database = database, api = api
        // Owed since the answer was kept (`answerUpload`, one commit with it); owed again for a
        // replayed answer whose delivery is not yet known.
        do {
            try await database.oweUploadRefusal(uploadId: uploadId, now: api.now)
        } catch {
            context.logger.error("upload refusal not recorded", metadata: ["upload": "\(uploadId)", "error": "\(error)"])
        }
        var response = response
        let body = answer.body
        let hooks = api.testHooks
        let channel = context.channel
        response.body = ResponseBody(contentLength: body.count) { writer in
            await hooks.beforeRefusalAnswer(uploadId)
            // A connection the phone has already reset takes these writes without an error here
            // (they are handed to the event loop, which fails them and closes the channel): only
            // a connection still open once the loop has tried them — a task queued behind them —
            // has the refusal.
            try await writer.write(ByteBuffer(bytes: body))
            try await writer.finish(nil)
            let open: Bool
            if let channel {
                open = (try? await channel.eventLoop.submit { channel.isActive }.get()) ?? false
            } else {
                open = true
            }
            guard open else {
                context.logger.info("upload refusal not delivered: the connection was gone", metadata: ["upload": "\(uploadId)"])
                return
            }
            try? await database.uploadRefusalAnswered(uploadId: uploadId, now: api.now)
        }
        return response
    }

    /// Judges an upload that carries an `Idempotency-Key` as a one-shot upload with that key
    /// would be (one key space per student across protocols): the key is claimed for the slot
    /// and the whole content's SHA-256 first. The same request made before (one-shot or
    /// resumable) answers with its answer and costs no second attempt; another recording
    /// under the key is 409 `idempotency_key_reused`; a request with the key still running is
    /// 409 `idempotency_key_in_use`, thrown without answering (the upload stays whole and
    /// unjudged; asking its URL again judges it).
    private func judgeClaiming(_ upload: ResumableUploadRecord, key: String, logger: Logger) async throws -> UploadAnswer {
        let path = staging.path(for: upload.id)
        let digest = try await api.pool.run { try FileDigest.sha256Hex(path: path) }
        let configuration = api.runtime.configuration
        var idempotency = IdempotencyStateMachine()
        _ = idempotency.headersReceived(.unused)
        guard case let .claim(requestHash) = idempotency.bodyReceived(requestHash: "\(upload.slot):\(digest)") else {
            throw StoreError.internalInconsistency("idempotency claim out of order")
        }
        let record = try await database.claimIdempotencyKey(
            owner: .student(upload.studentId), key: key, requestHash: requestHash, now: api.now, retention: configuration.idempotencyRetention,
            inFlightTimeout: configuration.http.uploadTimeout + 600)
        switch idempotency.claimAnswered(record) {
        case .run:
            // The admission answers the key in its own commit (`judgeRecording`): what is
            // released after a failure is only a key still in flight, never an admitted one.
            let owner = IdempotencyOwner.student(upload.studentId)
            let answer: UploadAnswer
            do {
                answer = try await judge(upload, claim: IdempotencyClaim(owner: owner, key: key, requestHash: requestHash), logger: logger)
            } catch {
                if idempotency.failed() == .release { try? database.abandonIdempotentRequest(owner: owner, key: key) }
                throw error
            }
            if case let .remember(status, body) = idempotency.answered(status: Int(answer.status.code), body: answer.body) {
                do {
                    try await database.finishIdempotentRequest(owner: owner, key: key, status: status, body: body)
                } catch {
                    try? database.abandonIdempotentRequest(owner: owner, key: key)
                    throw error
                }
            }
            return answer
        case let .replay(status, body):
            logger.info("resumable upload replays its key", metadata: ["upload": "\(upload.id)", "status": "\(status)"])
            return try await api.currentAnswer(status: status, body: body, instance: Self.path(of: upload.id))
        case .refuse(.keyReused):
            let problem = SubmissionRoutes.problem(.keyReused)
            var headers = problem.headers
            headers[.contentType] = "application/problem+json"
            return UploadAnswer(status: problem.status, body: try problem.body(instance: Self.path(of: upload.id)), headers: headers)
        case .refuse(.keyInUse):
            throw SubmissionRoutes.problem(.keyInUse)
        default:
            throw StoreError.internalInconsistency("idempotency claim answered out of order")
        }
    }

    private func judge(_ upload: ResumableUploadRecord, claim: IdempotencyClaim? = nil, logger: Logger) async throws -> UploadAnswer {
        // A process that died after admitting it and before keeping the answer: the recording is in.
        if let submission = try await database.submission(id: upload.submissionId) {
            return try await api.acceptedAnswer(submission, attempts: try await api.attempts(of: upload.studentId))
        }
        guard let slot = try? Slot(parsing: upload.slot) else { throw StoreError.internalInconsistency("upload \(upload.id) has slot \(upload.slot)") }
        let current = try await database.currentEnrolmentId(studentId: upload.studentId, now: api.now)
        if let bound = upload.enrolmentId, current != bound {
            let problem = APIProblem(.conflict, code: "enrolment_changed",
                                     detail: "This upload was started in an earlier semester; record this week's passage again.")
            var headers = problem.headers
            headers[.contentType] = "application/problem+json"
            return UploadAnswer(status: problem.status, body: try problem.body(instance: Self.path(of: upload.id)), headers: headers)
        }
        let staged = try staging.stageForIntake(id: upload.id, in: api.runtime.stateDirectory, fileExtension: upload.fileExtension)
        return try await api.judgeRecording(
            staged: staged, studentId: upload.studentId, slot: slot, fileExtension: upload.fileExtension,
            recordedAt: upload.recordedAt.map { RecordedAt(claimed: $0) }, uploadBegan: upload.createdAt, submissionId: upload.submissionId,
            idempotency: claim, instance: Self.path(of: upload.id), logger: logger)
    }

    /// Judges the uploads a process died in the middle of judging (at start, before anyone
    /// asks): each becomes its submission or its rejection even if its phone never comes back.
    func finishInterruptedCompletions(logger: Logger) async {
        do {
            for upload in try await database.interruptedUploadCompletions() {
                do {
                    let answer = try await exclusively(upload.id) { try await complete(upload.id, logger: logger) }
                    logger.notice("interrupted upload judged", metadata: ["upload": "\(upload.id)", "status": "\(answer.status.code)"])
                    // No one was waiting for this answer.
                    await tellRefusal(answer, uploadId: upload.id, logger: logger)
                } catch {
                    logger.error("interrupted upload not judged", metadata: ["upload": "\(upload.id)", "error": "\(error)"])
                }
            }
        } catch {
            logger.error("interrupted uploads not read", metadata: ["error": "\(error)"])
        }
    }
}
