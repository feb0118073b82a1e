import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// A coach's marks on a recording (DESIGN §9): a moment, optionally an ayah, a kind of
/// mistake, a short note, and optionally a spoken correction of 1–30 s.
struct AnnotationRoutes: Sendable {
    let api: APIContext
    let receiver: UploadReceiver

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.post("submissions/:id/annotations", use: create)
        group.patch("annotations/:id", use: update)
        group.delete("annotations/:id", use: delete)
        group.put("annotations/:id/audio", use: replaceCorrection)
        group.delete("annotations/:id/audio", use: removeCorrection)
        group.get("annotations/:id/audio", use: audio)
        group.get("annotations/:id/waveform", use: waveform)
        group.get("students/:id/annotations", use: history)
    }

    /// `POST /v1/submissions/{id}/annotations` (the coach who answers the submission: the
    /// coach of its enrolment, or a placing coach for a placement assessment).
    /// `{"at_seconds", "surah"?, "ayah"?, "kind", "text"}` as JSON, or a spoken correction as
    /// the body (audio/*) with those as query parameters (`text` optional then).
    ///
    /// Before any body is read: the caller's role, the media type, whether this coach may
    /// annotate this recording (404 as for any submission they may not answer), and for a
    /// correction every query parameter; the correction then takes an upload slot of the
    /// coach's share and goes through the clip chain (`AudioLimits.annotationClip`).
    @Sendable func create(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let submissionId = try api.identifier("id", in: context)
        guard principal.role == .coach else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only the coach of a recording annotates it.")
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        let isJSON = type.hasPrefix("application/json")
        guard isJSON || UploadReceiver.acceptsMediaType(type) else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "Send the annotation as application/json, or a spoken correction as audio/* with the fields as query parameters.")
        }
        let database = api.runtime.database
        let submission: SubmissionRecord
        switch try await database.annotationTarget(submissionId: submissionId, coachId: principal.subject, now: api.now) {
        case let .success(target): submission = target
        case let .failure(refusal):
            context.refuseBody(of: request)
            throw Self.problem(refusal)
        }
        let duration = submission.analysis.durationSeconds
        var clip: CommentRecord.Clip?
        let annotation: ValidAnnotation
        if isJSON {
            annotation = try Self.validated(try await Self.jsonDraft(request, context: context), durationSeconds: duration, requiresText: true)
        } else {
            do {
                annotation = try Self.validated(try Self.queryDraft(request), durationSeconds: duration, requiresText: false)
            } catch {
                context.refuseBody(of: request)
                throw error
            }
            clip = try await receiveCorrection(request, context: context)
        }
        let outcome: Result<AnnotationRecord, AppDatabase.AnnotationTargetRefusal>
        do {
            outcome = try await database.addAnnotation(submissionId: submissionId, coachId: principal.subject, annotation: annotation,
                                                       clip: clip, now: api.now)
        } catch {
            if let clip { await api.removeArtifacts([clip.audioPath, clip.waveformPath]) }
            throw error
        }
        switch outcome {
        case let .success(record):
            api.wakeup.signal()
            return try api.json(AnnotationResource(record), status: .created)
        case let .failure(refusal):
            if let clip { await api.removeArtifacts([clip.audioPath, clip.waveformPath]) }
            throw Self.problem(refusal)
        }
    }

    /// `PATCH /v1/annotations/{id}` (its author, while they may annotate the recording): any of
    /// `at_seconds`, `kind`, `text`, and `surah` with `ayah` (both numbers, or both null for the
    /// moment alone), checked by the rules of a new annotation; the annotation as it now is.
    /// A spoken correction stays (`PUT`/`DELETE /v1/annotations/{id}/audio` change it).
    @Sendable func update(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard principal.role == .coach else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only the coach who wrote an annotation changes it.")
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send the change as application/json.")
        }
        let change = try await request.decodeJSON(as: AnnotationChange.self, context: context, limit: 16 * 1_024, shape: AnnotationChange.shape)
        let outcome = try await api.runtime.database.updateAnnotation(id: id, coachId: principal.subject, now: api.now) { stored, duration in
            try Self.validated(change.applied(to: stored), durationSeconds: duration, requiresText: stored.audioPath == nil)
        }
        switch outcome {
        case let .success(record): return try api.json(AnnotationResource(record))
        case .failure(.notFound): throw APIProblem.notFound("annotation of yours with this id")
        case let .failure(refusal): throw Self.problem(refusal)
        }
    }

    /// `PUT /v1/annotations/{id}/audio` (its author, while they may annotate the recording): a
    /// new spoken correction (audio/*, 1–30 s, through the clip chain) in place of the one it
    /// has, or as its first; the annotation as it now is. Before any body is read: the role,
    /// the media type, and that the annotation is theirs to change. The old correction's files
    /// go after the commit; the new one's, when the change is refused. A retry does the same
    /// again: the mark ends with the correction sent last.
    @Sendable func replaceCorrection(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard principal.role == .coach else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only the coach who wrote an annotation changes it.")
        }
        guard UploadReceiver.acceptsMediaType(request.headers[.contentType]?.lowercased() ?? "") else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send the spoken correction as audio/*.")
        }
        do {
            try await changeableAnnotation(id: id, coachId: principal.subject)
        } catch {
            context.refuseBody(of: request)
            throw error
        }
        let clip = try await receiveCorrection(request, context: context)
        let outcome: Result<(annotation: AnnotationRecord, replaced: [String]), AppDatabase.AnnotationTargetRefusal>
        do {
            outcome = try await api.runtime.database.replaceAnnotationClip(id: id, coachId: principal.subject, clip: clip, now: api.now) { _ in }
        } catch {
            await api.removeArtifacts([clip.audioPath, clip.waveformPath])
            throw error
        }
        switch outcome {
        case let .success((annotation, replaced)):
            await api.removeArtifacts(replaced)
            return try api.json(AnnotationResource(annotation))
        case let .failure(refusal):
            await api.removeArtifacts([clip.audioPath, clip.waveformPath])
            throw Self.changeProblem(refusal)
        }
    }

    /// `DELETE /v1/annotations/{id}/audio` (its author, while they may annotate the recording):
    /// the mark keeps its note and loses its spoken correction; 422 `text_missing`
    /// when it has no note to stand on. The annotation as it now is (a mark without a
    /// correction answers the same: the request is done).
    @Sendable func removeCorrection(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard principal.role == .coach else {
            throw APIProblem.forbidden("Only the coach who wrote an annotation changes it.")
        }
        let outcome = try await api.runtime.database.replaceAnnotationClip(id: id, coachId: principal.subject, clip: nil, now: api.now) { stored in
            guard !stored.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw APIProblem(.unprocessableContent, code: AnnotationRefusal.textMissing.code,
                                 detail: "This mark has no note; write one before taking its spoken correction away, or delete the mark.")
            }
        }
        switch outcome {
        case let .success((annotation, replaced)):
            await api.removeArtifacts(replaced)
            return try api.json(AnnotationResource(annotation))
        case let .failure(refusal):
            throw Self.changeProblem(refusal)
        }
    }

    /// A spoken correction from the body: an upload slot of the coach's share, then the clip
    /// chain (1–30 s); 422 like an upload when the chain refuses it, leaving nothing behind.
    private func receiveCorrection(_ request: Request, context: TilawaRequestContext) async throws -> CommentRecord.Clip {
        let clips = api.runtime.annotationClips
        let now = api.now
        let encoded = try await receiver.withSlot(request, context: context) {
            let staged = try await receiver.receive(request, context: context, fileExtension: SubmissionRoutes.fileExtension(for: request))
            return try await api.pool.run { try clips.encode(staged: staged.file, now: now) }
        }
        switch encoded {
        case let .encoded(encoded): return encoded
        case let .rejected(verdict): throw APIProblem.audio(verdict, analysis: nil)
        }
    }

    /// Refuses, before a body is read, a change to an annotation that is not the coach's or whose
    /// recording they may no longer annotate.
    private func changeableAnnotation(id: String, coachId: String) async throws {
        let database = api.runtime.database
        guard let annotation = try await database.annotation(id: id), annotation.coachId == coachId else {
            throw APIProblem.notFound("annotation of yours with this id")
        }
        if case let .failure(refusal) = try await database.annotationTarget(submissionId: annotation.submissionId, coachId: coachId, now: api.now) {
            throw Self.changeProblem(refusal)
        }
    }

    /// A refused change's problem: an annotation not the caller's is not found, as for none.
    static func changeProblem(_ refusal: AppDatabase.AnnotationTargetRefusal) -> APIProblem {
        refusal == .notFound ? APIProblem.notFound("annotation of yours with this id") : problem(refusal)
    }

    /// `DELETE /v1/annotations/{id}` (its author): the row, then its files.
    @Sendable func delete(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        guard principal.role == .coach else {
            throw APIProblem.forbidden("Only the coach who wrote an annotation deletes it.")
        }
        guard let deleted = try await api.runtime.database.deleteAnnotation(id: id, coachId: principal.subject) else {
            throw APIProblem.notFound("annotation of yours with this id")
        }
        // After the commit: a crash in between leaves orphans the sweep removes.
        await api.removeArtifacts(deleted.files)
        return Response(status: .noContent)
    }

    /// `GET /v1/students/{id}/annotations?surah=&ayah=&limit=` (the student, a coach who may
    /// see them, ops): the student's annotations newest first, of one surah or one ayah. A
    /// student sees those of recordings whose reply is out.
    @Sendable func history(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        try await api.access.requireStudent(studentId, for: principal)
        let query = request.uri.queryParameters
        let surah = try query.get("surah").map { try Self.integer($0, name: "surah") }
        let ayah = try query.get("ayah").map { try Self.integer($0, name: "ayah") }
        if ayah != nil, surah == nil {
            throw APIProblem.badRequest("invalid_query", "Give the surah with the ayah (surah=2&ayah=255), or the surah alone.")
        }
        if let surah, AyahCounts.count(surah: surah) == nil {
            throw APIProblem.badRequest("invalid_query", "There is no surah \(surah); surahs are numbered 1 to 114.")
        }
        let limit = try query.get("limit").map { try Self.integer($0, name: "limit") } ?? 100
        guard (1...500).contains(limit) else {
            throw APIProblem.badRequest("invalid_query", "limit is 1 to 500.")
        }
        let records = try await api.runtime.database.annotationHistory(
            studentId: studentId, surah: surah, ayah: ayah, sentOnly: principal.role == .student, limit: limit)
        return try api.json(AnnotationHistoryResource(studentId: studentId, annotations: records.map(AnnotationResource.init)))
    }

    /// An annotation the caller may read: one of a submission they may read (a student's,
    /// once the reply is out); 404 otherwise, the same as for none.
    private func visibleAnnotation(_ context: TilawaRequestContext) async throws -> AnnotationRecord {
        let principal = try context.requirePrincipal()
        let id = try api.identifier("id", in: context)
        let database = api.runtime.database
        guard let annotation = try await database.annotation(id: id), let submission = try await database.submission(id: annotation.submissionId),
              try await api.access.canRead(submission: submission, by: principal),
              principal.role != .student || submission.state == .feedbackReady else {
            throw APIProblem.notFound("annotation with this id")
        }
        return annotation
    }

    /// `GET /v1/annotations/{id}/audio`: the spoken correction, `audio/ogg` (or its MP4/CAF variant), with Range and ETag.
    @Sendable func audio(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let annotation = try await visibleAnnotation(context)
        guard let path = annotation.audioPath else { throw APIProblem.notFound("spoken correction for this annotation") }
        // The ETag is the correction's own: one recorded again is another representation.
        return try await api.respondAudio(artifact: path, id: AnnotationResource.clipKey(path),
                                          request: request, context: context)
    }

    /// `GET /v1/annotations/{id}/waveform`: the correction's peaks.
    @Sendable func waveform(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let annotation = try await visibleAnnotation(context)
        guard let path = annotation.waveformPath else { throw APIProblem.notFound("spoken correction for this annotation") }
        return try await api.respondWaveform(artifact: path, id: AnnotationResource.clipKey(annotation.audioPath ?? path), request: request, context: context)
    }

    // MARK: Reading the request

    /// A JSON annotation (`AnnotationBody`); 400 `invalid_body` for another shape.
    static func jsonDraft(_ request: Request, context: TilawaRequestContext) async throws -> AnnotationDraft {
        let body = try await request.decodeJSON(as: AnnotationBody.self, context: context, limit: 16 * 1_024, shape: AnnotationBody.shape)
        return AnnotationDraft(atSeconds: body.atSeconds, surah: body.surah, ayah: body.ayah, kind: body.kind, text: body.text)
    }

    /// The query parameters beside a spoken correction: `at_seconds`, `kind`, optional
    /// `surah`, `ayah` and `text`; 400 `invalid_query` when one is missing or not a number.
    static func queryDraft(_ request: Request) throws -> AnnotationDraft {
        let query = request.uri.queryParameters
        guard let at = query.get("at_seconds"), let atSeconds = Double(at), let kind = query.get("kind") else {
            throw APIProblem.badRequest("invalid_query", "A spoken correction needs at_seconds (a number) and kind as query parameters, e.g. ?at_seconds=12.5&kind=tajweed.")
        }
        return AnnotationDraft(atSeconds: atSeconds, surah: try query.get("surah").map { try integer($0, name: "surah") },
                               ayah: try query.get("ayah").map { try integer($0, name: "ayah") }, kind: kind, text: query.get("text") ?? "")
    }

    static func integer(_ text: String, name: String) throws -> Int {
        guard let value = Int(text) else { throw APIProblem.badRequest("invalid_query", "\(name) must be a whole number.") }
        return value
    }

    /// The draft's rules (TilawaCore's `AnnotationDraft`), 422 with its code when one is broken.
    static func validated(_ draft: AnnotationDraft, durationSeconds: Double, requiresText: Bool) throws -> ValidAnnotation {
        switch draft.validated(durationSeconds: durationSeconds, requiresText: requiresText) {
        case let .success(valid): return valid
        case let .failure(refusal): throw APIProblem(.unprocessableContent, code: refusal.code, detail: refusal.message)
        }
    }

    static func problem(_ refusal: AppDatabase.AnnotationTargetRefusal) -> APIProblem {
        switch refusal {
        case .notFound:
            APIProblem.notFound("submission with this id")
        case .notReady:
            APIProblem(.conflict, code: "not_ready", detail: "The recording is still being processed; annotate it in a few seconds.",
                       headers: [.retryAfter: "2"])
        case let .notAnnotatable(state):
            APIProblem(.conflict, code: "not_annotatable",
                       detail: state == .withdrawn ? "The student withdrew this recording; there is nothing to annotate."
                           : "This recording could not be processed; there is nothing to annotate.")
        }
    }
}
