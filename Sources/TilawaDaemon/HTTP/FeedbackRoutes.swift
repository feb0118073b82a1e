import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Coach replies over HTTP: upload (the assigned coach), notes, playback.
struct FeedbackRoutes: Sendable {
    let api: APIContext
    let receiver: UploadReceiver
    let artifacts = ArtifactResponder()

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

    @Sendable func upload(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let submissionId = try api.identifier("id", in: context)
        guard principal.role == .coach else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only the student's coach can reply.")
        }
        try receiver.requireAudio(request, context: context, what: "reply")
        let result = try Self.result(request, context: context)
        // Pair before reading the body: a reply for someone else's student is refused at once,
        // and an end-of-course reply without its result (or a result on another reply) too.
        switch try await api.runtime.database.pairFeedback(.submission(submissionId), coachId: principal.subject) {
        case let .failure(refusal):
            context.refuseBody(of: request)
            throw Self.problem(refusal)
        case let .success(submission):
            if let refusal = FeedbackRefusal.result(result, for: submission) {
                context.refuseBody(of: request)
                throw Self.problem(refusal)
            }
        }
        let intake = api.runtime.feedbackIntake
        let outcome = try await receiver.withSlot(request, context: context) {
            let staged = try await receiver.receive(request, context: context, fileExtension: SubmissionRoutes.fileExtension(for: request))
            return try await api.pool.run {
                try intake.submit(staged: staged.file, coachId: principal.subject, target: .submission(submissionId), notes: nil,
                                  origin: .http, fileExtension: URL(fileURLWithPath: staged.path).pathExtension, result: result)
            }
        }
        switch outcome {
        case let .accepted(feedback, _):
            api.wakeup.signal()
            return try api.json(try await resource(feedback.id), status: .created, headers: [.location: "/v1/feedback/\(feedback.id)/audio"])
        case let .rejected(verdict):
            throw APIProblem.audio(verdict, analysis: nil)
        case let .refused(refusal):
            throw Self.problem(refusal)
        }
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
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
              Set(object.keys) == ["notes"], object["notes"] is String || object["notes"] is NSNull else {
            throw APIProblem.badRequest("invalid_body", "The body must be {\"notes\": \"…\"} (a string of at most 8192 characters, or null).")
        }
        let notes = object["notes"] as? String
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
        return try await api.respondAudio(oggPath: api.runtime.stateDirectory.artifactStore.path(path), id: feedback.id,
                                          request: request, context: context, onServed: onServed)
    }

    @Sendable func waveform(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let feedback = try await visibleFeedback(context)
        guard let path = feedback.waveformPath else { throw Self.notReady }
        return try await artifacts.respond(path: api.runtime.stateDirectory.artifactStore.path(path), id: feedback.id + "-peaks",
                                           contentType: "application/json", request: request, context: context)
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

/// The answer of `POST /v1/feedback/{id}/listened`.
struct ListenedResource: Encodable {
    var feedbackId: String
    var listenedAt: Date?
}
