import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Uploads, submissions and their artifacts.
struct SubmissionRoutes: Sendable {
    let api: APIContext
    let receiver: UploadReceiver
    let uploads: ResumableUploads

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.post("students/:id/weeks/:slot/submissions", use: upload)
        group.get("submissions/:id", use: show)
        group.delete("submissions/:id", use: withdraw)
        group.get("submissions/:id/audio", use: audio)
        group.get("submissions/:id/waveform", use: waveform)
    }

    // MARK: Upload

    @Sendable func upload(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (studentId, slot) = try api.uploadTarget(request, context: context, receiver: receiver)
        if let version = try DraftUploadProtocol.version(of: request), try DraftUploadProtocol.completes(request, version: version) != nil {
            return try await DraftUploads(api: api, uploads: uploads).create(request, context: context, version: version, studentId: studentId, slot: slot)
        }
        let uploadBegan = api.now
        let recordedAt = try Self.recordedAt(request, context: context)
        let key = try Self.idempotencyKey(request)
        // The key, then the rule's prechecks, then a slot, then the body (`checkBeforeBody`).
        let idempotency = try await api.checkBeforeBody(request, context: context, studentId: studentId, slot: slot, key: key)
        return try await receiver.withSlot(request, context: context) {
            try await receiveAndAnswer(request, context: context, studentId: studentId, slot: slot, key: key, idempotency: idempotency,
                                       recordedAt: recordedAt, uploadBegan: uploadBegan)
        }
    }

    /// The body of an upload that holds a slot: streamed to staging, the idempotency key
    /// claimed, judged and answered.
    private func receiveAndAnswer(
        _ request: Request, context: TilawaRequestContext, studentId: String, slot: Slot, key: String?,
        idempotency initial: IdempotencyStateMachine, recordedAt: RecordedAt?, uploadBegan: Date
    ) async throws -> Response {
        var idempotency = initial
        let staged: StagedUpload
        do {
            staged = try await receiver.receive(request, context: context, fileExtension: Self.fileExtension(for: request))
        } catch let problem as APIProblem {
            api.metrics.countUpload(outcome: "error", reason: problem.code)
            throw problem
        }
        api.metrics.uploadBytes.increment(by: Int64(staged.bytes))
        var claim: IdempotencyClaim?
        if let key, case let .claim(requestHash) = idempotency.bodyReceived(requestHash: "\(slot):\(staged.sha256)") {
            // One transaction: the first request may have finished (or started) while this body streamed.
            let configuration = api.runtime.configuration
            let record = try await api.runtime.database.claimIdempotencyKey(
                owner: .student(studentId), key: key, requestHash: requestHash, now: api.now, retention: configuration.idempotencyRetention,
                inFlightTimeout: configuration.http.uploadTimeout + 600)
            switch idempotency.claimAnswered(record) {
            case .run:
                claim = IdempotencyClaim(owner: .student(studentId), key: key, requestHash: requestHash)
            case let .replay(status, body):
                staged.file.discard()
                // From the recording's current state: withdrawn since is 410, not the old 201.
                return try await api.currentAnswer(status: status, body: body, instance: request.uri.path)
                    .response(adding: [.idempotentReplayed: "true"])
            case let .refuse(refusal):
                staged.file.discard()
                throw Self.problem(refusal)
            default:
                staged.file.discard()
                throw StoreError.internalInconsistency("idempotency claim answered out of order")
            }
        }

        // Once the admission commits, its key is answered with the recording (in the same
        // commit): releasing the key after a later failure (building the answer, storing it)
        // frees only a key still in flight, so a retry never admits a second recording.
        let database = api.runtime.database
        let answer: UploadAnswer
        do {
            answer = try await api.judgeRecording(
                staged: staged.file, studentId: studentId, slot: slot, fileExtension: URL(fileURLWithPath: staged.path).pathExtension,
                recordedAt: recordedAt, uploadBegan: uploadBegan, idempotency: claim, instance: request.uri.path, logger: context.logger)
        } catch {
            if let key, idempotency.failed() == .release { try? database.abandonIdempotentRequest(owner: .student(studentId), key: key) }
            throw error
        }
        if let key, case let .remember(status, body) = idempotency.answered(status: Int(answer.status.code), body: answer.body) {
            do {
                try await database.finishIdempotentRequest(owner: .student(studentId), key: key, status: status, body: body)
            } catch {
                // A refusal unstored: its key is released rather than left in flight (409) until it times out.
                try? database.abandonIdempotentRequest(owner: .student(studentId), key: key)
                throw error
            }
        }
        return answer.response()
    }

    /// The conflict of an `Idempotency-Key`; `what` names what a request sends (a recording, a reply).
    static func problem(_ refusal: IdempotencyStateMachine.Refusal, what: String = "recording") -> APIProblem {
        switch refusal {
        case .keyInUse:
            // A few seconds: the first request is being judged, or its phone is gone and the key
            // is released when its process learns so.
            APIProblem(.conflict, code: "idempotency_key_in_use",
                       detail: "A request with this Idempotency-Key is still being processed; wait for its answer.",
                       headers: [.retryAfter: "5"])
        case .keyReused:
            APIProblem(.conflict, code: "idempotency_key_reused",
                       detail: "This Idempotency-Key was used for a different \(what); use a new key for a new \(what).")
        }
    }

    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[.idempotencyKey] else { return nil }
        // Printable ASCII and inner spaces (a field value's outer spaces are not part of it):
        // the `IdempotencyKey` schema of openapi/openapi.yaml, both ways.
        guard (1...128).contains(key.utf8.count), key.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }),
              key.utf8.first != 0x20, key.utf8.last != 0x20 else {
            throw APIProblem.badRequest("invalid_idempotency_key", "The Idempotency-Key must be 1 to 128 printable ASCII characters.")
        }
        return key
    }

    /// An extension to keep the original under, from the declared media type.
    static func fileExtension(for request: Request) -> String {
        fileExtension(forMediaType: request.headers[.contentType] ?? "")
    }

    /// An extension to keep the original under, from a media type (`upload` when unknown).
    static func fileExtension(forMediaType mediaType: String) -> String {
        let type = mediaType.lowercased()
        let table: [(String, String)] = [
            ("wav", "wav"), ("wave", "wav"), ("mpeg", "mp3"), ("mp3", "mp3"), ("mp4", "m4a"), ("m4a", "m4a"), ("aac", "aac"),
            ("ogg", "ogg"), ("opus", "opus"), ("webm", "webm"), ("flac", "flac"), ("x-caf", "caf"), ("3gpp", "3gp"),
        ]
        return table.first { type.contains($0.0) }?.1 ?? "upload"
    }

    // MARK: Reading

    private func visibleSubmission(_ context: TilawaRequestContext) async throws -> SubmissionRecord {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard let submission = try await api.runtime.database.submission(id: id), try await api.access.canRead(submission: submission, by: principal) else {
            throw APIProblem.notFound("submission with this id")
        }
        return submission
    }

    @Sendable func show(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let submission = try await visibleSubmission(context)
        let attempts = try await api.attempts(of: submission.studentId)
        var extras = try await api.runtime.database.submissionExtras(submission)
        // The coach's marks are a draft until the reply is out.
        if try context.requirePrincipal().role == .student, submission.state != .feedbackReady { extras.annotations = [] }
        return try api.json(SubmissionResource(submission, attempts: attempts, extras: extras,
                                               withdrawMinutes: api.runtime.configuration.submissions.withdrawMinutes, now: api.now))
    }

    /// `DELETE /v1/submissions/{id}` (the student): withdraws a recording within
    /// `submissions.withdraw_minutes` of sending it and before any reply; the attempt is back.
    @Sendable func withdraw(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard principal.role == .student else {
            throw APIProblem.forbidden("Only the student who sent a recording can withdraw it.")
        }
        let database = api.runtime.database
        let minutes = api.runtime.configuration.submissions.withdrawMinutes
        switch try await database.withdrawSubmission(id: id, studentId: principal.subject, windowMinutes: minutes, now: api.now) {
        case let .success(withdrawal):
            await api.removeArtifacts(withdrawal.filesToRemove)
            api.wakeup.signal()
            let attempts = try await api.attempts(of: principal.subject)
            let extras = try await database.submissionExtras(withdrawal.submission)
            return try api.json(SubmissionResource(withdrawal.submission, attempts: attempts, extras: extras, withdrawMinutes: minutes, now: api.now))
        case .failure(.notFound):
            throw APIProblem.notFound("submission with this id")
        case let .failure(refusal):
            let zone = try await database.studentZone(studentId: principal.subject, programme: api.runtime.configuration.program.timeZone)
            throw APIProblem(.conflict, code: refusal.code, detail: refusal.message(in: zone))
        }
    }

    /// The `Recorded-At` of an offline recording (RFC 3339), or nil; a malformed one is refused
    /// before the body is read.
    static func recordedAt(_ request: Request, context: TilawaRequestContext) throws -> RecordedAt? {
        guard let text = request.headers[.recordedAt] else { return nil }
        guard let recordedAt = RecordedAt(parsing: text) else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("invalid_recorded_at", "Recorded-At must be an RFC 3339 date and time, e.g. 2026-11-20T21:14:05Z.")
        }
        return recordedAt
    }

    @Sendable func audio(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let submission = try await visibleSubmission(context)
        guard let path = submission.audioPath else { throw Self.notReady(submission) }
        return try await api.respondAudio(artifact: path, id: submission.id,
                                          request: request, context: context)
    }

    @Sendable func waveform(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let submission = try await visibleSubmission(context)
        guard let path = submission.waveformPath else { throw Self.notReady(submission) }
        return try await api.respondWaveform(artifact: path, id: submission.id, request: request, context: context)
    }

    static func notReady(_ submission: SubmissionRecord) -> APIProblem {
        if submission.state == .withdrawn {
            return APIProblem(.gone, code: "submission_withdrawn", detail: "This recording was withdrawn; its audio is gone.")
        }
        return submission.state == .failed
            ? APIProblem(.gone, code: "encode_failed", detail: "This recording could not be processed; the attempt was given back. Please record again.")
            : APIProblem(.conflict, code: "not_ready", detail: "The recording is still being processed; try again in a few seconds.",
                         headers: [.retryAfter: "2"])
    }
}
