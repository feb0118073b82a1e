import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Coach replies over HTTP: upload (the assigned coach), notes, playback.
struct FeedbackRoutes: Sendable {
    let api: APIContext
    let receiver: UploadReceiver

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.post("submissions/:id/feedback", use: upload)
        group.patch("feedback/:id", use: updateNotes)
        group.get("feedback/:id/audio", use: audio)
        group.get("feedback/:id/waveform", use: waveform)
        group.post("feedback/:id/listened", use: listened)
    }

    /// `POST /v1/feedback/{id}/listened` (the student the reply is for): the app says it was played.
    @Sendable func listened(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let feedback = try await visibleFeedback(context)
        guard principal.role == .student else { throw APIProblem.forbidden("Only the student the reply is for can mark it listened.") }
        guard feedback.state == .ready else { throw Self.notReady }
        let listenedAt = try await api.runtime.database.markFeedbackListened(feedbackId: feedback.id, now: api.now)
        return try api.json(ListenedResource(feedbackId: feedback.id, listenedAt: listenedAt))
    }

    /// `POST /v1/submissions/{id}/feedback` (the coach who may answer the submission): the
    /// reply as the body (audio/*), `?result=` for an end-of-course one.
    ///
    /// `Idempotency-Key` has the submission route's semantics in the coach's own key space
    /// (`IdempotencyOwner.coach`): the key is looked up before the body (in flight: 409
    /// `idempotency_key_in_use`; answered for another submission: 409
    /// `idempotency_key_reused`), claimed once the body is in (same submission, result and
    /// body SHA-256: the first answer again, `Idempotent-Replayed: true`, the reply as it is
    /// now; another body: 409 `idempotency_key_reused`), and released when the request fails
    /// on our side. A key answered for this submission skips the pairing prechecks: the retry
    /// of a reply that was stored is not paired again, it gets its 201.
    @Sendable func upload(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let submissionId = try api.identifier("id", in: context)
        guard principal.role == .coach else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only the student's coach can reply.")
        }
        try receiver.requireAudio(request, context: context, what: "reply")
        let result = try Self.result(request, context: context)
        let key = try SubmissionRoutes.idempotencyKey(request)
        let owner = IdempotencyOwner.coach(principal.subject)
        let database = api.runtime.database
        let configuration = api.runtime.configuration
        let inFlightTimeout = configuration.http.uploadTimeout + 600
        var idempotency = IdempotencyStateMachine()
        var mayBeReplay = false
        if let key {
            let record = try await database.idempotencyState(owner: owner, key: key, now: api.now, retention: configuration.idempotencyRetention,
                                                             inFlightTimeout: inFlightTimeout)
            switch idempotency.headersReceived(record, slot: submissionId) {
            case let .refuse(refusal):
                context.refuseBody(of: request)
                throw SubmissionRoutes.problem(refusal, what: "reply")
            case .readBody:
                mayBeReplay = true
            default:
                break
            }
        }
        if !mayBeReplay {
            // Pair before reading the body: a reply for someone else's student is refused at once,
            // and an end-of-course reply without its result (or a result on another reply) too.
            switch try await database.pairFeedback(.submission(submissionId), coachId: principal.subject, now: api.now) {
            case let .failure(refusal):
                context.refuseBody(of: request)
                throw Self.problem(refusal)
            case let .success(submission):
                if let refusal = FeedbackRefusal.result(result, for: submission) {
                    context.refuseBody(of: request)
                    throw Self.problem(refusal)
                }
            }
        }
        let intake = api.runtime.feedbackIntake
        let instance = request.uri.path
        return try await receiver.withSlot(request, context: context) {
            let staged = try await receiver.receive(request, context: context, fileExtension: SubmissionRoutes.fileExtension(for: request))
            let requestHash = "\(submissionId):\(result?.rawValue ?? "none"):\(staged.sha256)"
            var claim: IdempotencyClaim?
            if let key, case let .claim(hash) = idempotency.bodyReceived(requestHash: requestHash) {
                // One transaction: the first request may have finished (or started) while this body streamed.
                let record = try await database.claimIdempotencyKey(owner: owner, key: key, requestHash: hash, now: api.now,
                                                                    retention: configuration.idempotencyRetention, inFlightTimeout: inFlightTimeout)
                switch idempotency.claimAnswered(record) {
                case .run:
                    // Answered in the reply's own commit: whatever fails after it, a retry finds the reply.
                    claim = IdempotencyClaim(owner: owner, key: key, requestHash: hash)
                case let .replay(status, body):
                    staged.file.discard()
                    return try await currentAnswer(status: status, body: body).response(adding: [.idempotentReplayed: "true"])
                case let .refuse(refusal):
                    staged.file.discard()
                    throw SubmissionRoutes.problem(refusal, what: "reply")
                default:
                    staged.file.discard()
                    throw StoreError.internalInconsistency("idempotency claim answered out of order")
                }
            }
            let outcome: FeedbackOutcome
            let admissionClaim = claim
            do {
                outcome = try await api.pool.run {
                    try intake.submit(staged: staged.file, coachId: principal.subject, target: .submission(submissionId), notes: nil,
                                      origin: .http, fileExtension: URL(fileURLWithPath: staged.path).pathExtension, result: result,
                                      idempotency: admissionClaim)
                }
            } catch {
                if let key, idempotency.failed() == .release { try? database.abandonIdempotentRequest(owner: owner, key: key) }
                throw error
            }
            let answer: UploadAnswer
            do {
                answer = try await self.answer(outcome, instance: instance)
            } catch {
                if let key, case let .accepted(feedback, _) = outcome {
                    // The reply is stored: a retry must find it, not store a second one. Its
                    // id is enough, since a replay answers from the reply as it is then.
                    if case let .remember(status, body) = idempotency.answered(status: 201, body: Data(#"{"id":"\#(feedback.id)"}"#.utf8)) {
                        try? await database.finishIdempotentRequest(owner: owner, key: key, status: status, body: body)
                    }
                } else if let key, idempotency.failed() == .release {
                    try? database.abandonIdempotentRequest(owner: owner, key: key)
                }
                throw error
            }
            if let key, case let .remember(status, body) = idempotency.answered(status: Int(answer.status.code), body: answer.body) {
                try await database.finishIdempotentRequest(owner: owner, key: key, status: status, body: body)
            }
            return answer.response()
        }
    }

    /// The answer to a reply that arrived whole: 201 with the reply, 422 for its audio, the
    /// pairing's refusal (decided again inside the insert's transaction) otherwise.
    private func answer(_ outcome: FeedbackOutcome, instance: String) async throws -> UploadAnswer {
        let problem: APIProblem
        switch outcome {
        case let .accepted(feedback, _):
            api.wakeup.signal()
            return try await createdAnswer(feedback.id)
        case let .rejected(verdict):
            problem = APIProblem.audio(verdict, analysis: nil)
        case let .refused(refusal):
            problem = Self.problem(refusal)
        }
        var headers = problem.headers
        headers[.contentType] = "application/problem+json"
        return UploadAnswer(status: problem.status, body: try problem.body(instance: instance), headers: headers)
    }

    /// 201 with the reply as it is now.
    private func createdAnswer(_ id: String) async throws -> UploadAnswer {
        UploadAnswer(status: .created, body: try APIJSON.encoder().encode(try await resource(id)),
                     headers: [.contentType: "application/json", .location: "/v1/feedback/\(id)/audio"])
    }

    /// A remembered answer told from the present: a stored reply as it is now (its state,
    /// notes, thread), anything else as it was.
    private func currentAnswer(status: Int, body: Data) async throws -> UploadAnswer {
        var stored = UploadAnswer.stored(status: status, body: body)
        guard status == 201, let id = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["id"] as? String,
              Identifier(rawValue: id) != nil else { return stored }
        if try await api.runtime.database.feedback(id: id) != nil { return try await createdAnswer(id) }
        stored.headers[.location] = "/v1/feedback/\(id)/audio"
        return stored
    }

    @Sendable func updateNotes(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard let feedback = try await api.runtime.database.feedback(id: id), principal.role == .coach, feedback.coachId == principal.subject else {
            throw APIProblem.notFound("reply of yours with this id")
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send the notes as application/json: {\"notes\": \"…\"}.")
        }
        let notes = try await request.decodeJSON(as: NotesBody.self, context: context,
                                                 shape: "The body must be {\"notes\": \"…\"} (a string of at most 8192 characters, or null).").notes
        if let notes, notes.count > 8_192 {
            throw APIProblem.badRequest("invalid_body", "The notes are longer than 8192 characters.")
        }
        guard try await api.runtime.database.updateFeedbackNotes(id: id, notes: notes?.isEmpty == true ? nil : notes) != nil else {
            throw APIProblem.notFound("reply with this id")
        }
        return try api.json(try await resource(id))
    }

    /// The reply as the API shows it, with its student and coach's name.
    private func resource(_ id: String) async throws -> FeedbackResource {
        guard let view = try await api.runtime.database.feedbackView(id: id) else { throw APIProblem.notFound("reply with this id") }
        return FeedbackResource(view)
    }

    private func visibleFeedback(_ context: TilawaRequestContext) async throws -> FeedbackRecord {
        let database = api.runtime.database
        return try await api.visible("reply", in: context, fetch: { try await database.feedback(id: $0) }, submissionId: \.submissionId)
    }

    @Sendable func audio(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let feedback = try await visibleFeedback(context)
        guard let path = feedback.audioPath else { throw Self.notReady }
        // What the student fetched counts towards `listened` (95 % of the bytes, any order,
        // any number of ranges); a coach's or ops' fetch does not.
        let principal = try context.requirePrincipal()
        let database = api.runtime.database
        let now = api.now
        let feedbackId = feedback.id
        var onServed: (@Sendable (Range<Int>, Int) async -> Void)?
        if principal.role == .student, feedback.listenedAt == nil {
            onServed = { @Sendable range, size in
                _ = try? await database.recordFeedbackFetch(feedbackId: feedbackId, range: range, size: size, now: now)
            }
        }
        return try await api.respondAudio(artifact: path, id: feedback.id,
                                          request: request, context: context, onServed: onServed)
    }

    @Sendable func waveform(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let feedback = try await visibleFeedback(context)
        guard let path = feedback.waveformPath else { throw Self.notReady }
        return try await api.respondWaveform(artifact: path, id: feedback.id, request: request, context: context)
    }

    static let notReady = APIProblem(.conflict, code: "not_ready", detail: "The reply is still being processed; try again in a few seconds.",
                                     headers: [.retryAfter: "2"])

    static func problem(_ refusal: FeedbackRefusal) -> APIProblem {
        switch refusal {
        // A submission of a student who is not the coach's is answered as one that does not
        // exist, exactly as the GET routes do, so a coach cannot confirm others' ids.
        case .unknownSubmission, .notAssignedCoach:
            APIProblem.notFound("submission with this id")
        case .unknownStudent, .noSubmission:
            APIProblem(.notFound, code: refusal.code, detail: refusal.message)
        case .eocResultRequired, .resultNotApplicable:
            APIProblem(.unprocessableContent, code: refusal.code, detail: refusal.message)
        case .notAnswerable:
            APIProblem(.conflict, code: refusal.code, detail: refusal.message)
        }
    }

    /// The `result` query parameter of an end-of-course reply: `pass` or `retake` (the body is
    /// the audio itself, so the result travels beside it).
    static func result(_ request: Request, context: TilawaRequestContext) throws -> EOCResult? {
        guard let text = request.uri.queryParameters.get("result") else { return nil }
        guard let result = EOCResult(rawValue: text.lowercased()) else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("invalid_result", "The result must be pass or retake.")
        }
        return result
    }
}

/// A `PATCH /v1/feedback/{id}` body: `{"notes": "…" | null}`, that member alone.
struct NotesBody: Decodable {
    var notes: String?

    enum CodingKeys: String, CodingKey { case notes }

    init(from decoder: any Decoder) throws {
        guard try decoder.members(within: ["notes"]) == ["notes"] else { throw DecodingError.notTheShape("notes is missing", in: decoder) }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if try container.decodeNil(forKey: .notes) {
            notes = nil
        } else {
            notes = try container.decode(String.self, forKey: .notes)
        }
    }
}

/// The answer of `POST /v1/feedback/{id}/listened`.
struct ListenedResource: Encodable {
    var feedbackId: String
    var listenedAt: Date?
}
