import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// The thread under a coach's reply: a student's questions and the coach's answers, in text
/// or as a voice clip (1 s to 3 min, through the audio chain every recording takes).
struct CommentRoutes: Sendable {
    let api: APIContext
    let receiver: UploadReceiver

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.post("feedback/:id/comments", use: comment)
        group.get("comments/:id/audio", use: audio)
        group.get("comments/:id/waveform", use: waveform)
    }

    /// `POST /v1/feedback/{id}/comments`: the reply's student asks a question, or a coach who
    /// may answer the submission answers. `{"text": "…"}` as JSON, or a voice clip as the
    /// body (audio/*) with an optional `?text=`.
    ///
    /// Each author (student or coach) writes at most `comments.max_per_minute` comments in
    /// any minute, counted from the database: checked before the body is read (an author over
    /// the limit never sends a clip) and again inside the insert's transaction, so racing
    /// requests cannot pass it together; over it, 429 `too_many_comments` with `Retry-After`.
    @Sendable func comment(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        let author: CommentRecord.Author
        switch principal.role {
        case .student: author = .student
        case .coach: author = .coach
        case .ops:
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only the student and their coach write in a reply's thread.")
        }
        let limit = api.runtime.configuration.comments.maxPerMinute
        if let refusal = try await api.runtime.database.commentRateRefusal(
            author: author, authorId: principal.subject, maxPerMinute: limit, now: api.now) {
            context.refuseBody(of: request)
            throw Self.problem(refusal, now: api.now)
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        let text: String
        var clip: CommentRecord.Clip?
        if type.hasPrefix("application/json") {
            text = try await Self.jsonText(request, context: context)
        } else if UploadReceiver.acceptsMediaType(type) {
            text = try Self.queryText(request, context: context)
            // Who may write here is known before the body is read: a refused clip costs nothing.
            if let refusal = try await api.runtime.database.commentRefusal(feedbackId: id, author: author, authorId: principal.subject, now: api.now) {
                context.refuseBody(of: request)
                throw Self.problem(refusal, now: api.now)
            }
            let clips = api.runtime.commentClips
            let now = api.now
            let encoded = try await receiver.withSlot(request, context: context) {
                let staged = try await receiver.receive(request, context: context, fileExtension: SubmissionRoutes.fileExtension(for: request))
                return try await api.pool.run { try clips.encode(staged: staged.file, now: now) }
            }
            switch encoded {
            case let .encoded(encoded): clip = encoded
            case let .rejected(verdict): throw APIProblem.audio(verdict, analysis: nil)
            }
        } else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "Send {\"text\": \"…\"} as application/json, or a voice message as audio/*.")
        }
        let outcome: Result<CommentRecord, AppDatabase.CommentRefusal>
        do {
            outcome = try await api.runtime.database.addComment(
                feedbackId: id, author: author, authorId: principal.subject, text: text, clip: clip, maxPerMinute: limit,
                policy: api.runtime.policy, now: api.now)
        } catch {
            if let clip { await api.removeArtifacts([clip.audioPath, clip.waveformPath]) }
            throw error
        }
        switch outcome {
        case let .success(comment):
            api.wakeup.signal()
            return try api.json(CommentResource(comment), status: .created)
        case let .failure(refusal):
            if let clip { await api.removeArtifacts([clip.audioPath, clip.waveformPath]) }
            throw Self.problem(refusal, now: api.now)
        }
    }

    /// The text of a JSON comment: `{"text": "…"}`, 1 to 2,000 characters once trimmed.
    static func jsonText(_ request: Request, context: TilawaRequestContext) async throws -> String {
        let limit = CommentRecord.maximumLength
        let raw = try await request.decodeJSON(as: CommentBody.self, context: context, limit: 64 * 1_024,
                                               shape: "The body must be {\"text\": \"…\"} with 1 to \(limit) characters.").text
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...limit).contains(text.count) else {
            throw APIProblem.badRequest("invalid_body", "A comment has 1 to \(limit) characters; this one has \(text.count).")
        }
        return text
    }

    /// The optional text beside a voice clip (`?text=`), at most 2,000 characters once trimmed.
    static func queryText(_ request: Request, context: TilawaRequestContext) throws -> String {
        let text = (request.uri.queryParameters.get("text") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count <= CommentRecord.maximumLength else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("invalid_text", "The text beside a voice message has at most \(CommentRecord.maximumLength) characters; this one has \(text.count).")
        }
        return text
    }

    static func problem(_ refusal: AppDatabase.CommentRefusal, now: Date) -> APIProblem {
        switch refusal {
        case .notFound: return APIProblem.notFound("reply with this id")
        case .notReady: return FeedbackRoutes.notReady
        case let .tooManyComments(limit, retryAt):
            let wait = max(1, Int(retryAt.timeIntervalSince(now).rounded(.up)))
            return APIProblem(.tooManyRequests, code: refusal.code,
                              detail: "You have written \(limit) comments in the last minute; you can write again in \(wait) second\(wait == 1 ? "" : "s").",
                              extras: ["limit": .int(limit), "retry_after_seconds": .int(wait)],
                              headers: [.retryAfter: "\(wait)"])
        }
    }

    /// A comment whose submission the caller may read.
    private func visibleComment(_ context: TilawaRequestContext) async throws -> CommentRecord {
        let database = api.runtime.database
        return try await api.visible("comment", in: context, fetch: { try await database.comment(id: $0) }, submissionId: \.submissionId)
    }

    /// `GET /v1/comments/{id}/audio`: the voice clip, `audio/ogg`, with Range and ETag.
    @Sendable func audio(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let comment = try await visibleComment(context)
        guard let path = comment.audioPath else { throw APIProblem.notFound("voice message for this comment") }
        return try await api.respondAudio(artifact: path, id: comment.id,
                                          request: request, context: context)
    }

    /// `GET /v1/comments/{id}/waveform`: the clip's peaks.
    @Sendable func waveform(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let comment = try await visibleComment(context)
        guard let path = comment.waveformPath else { throw APIProblem.notFound("voice message for this comment") }
        return try await api.respondWaveform(artifact: path, id: comment.id, request: request, context: context)
    }
}

/// A JSON comment's body: `{"text": "…"}`, that member alone.
struct CommentBody: Decodable {
    var text: String

    enum CodingKeys: String, CodingKey { case text }

    init(from decoder: any Decoder) throws {
        guard try decoder.members(within: ["text"]) == ["text"] else { throw DecodingError.notTheShape("text is missing", in: decoder) }
        text = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .text)
    }
}
