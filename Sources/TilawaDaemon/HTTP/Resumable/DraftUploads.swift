import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import TilawaCore
import TilawaStore

/// The IETF draft's side of resumable uploads: an upload started on the submissions route
/// itself, announced at once by `104 Upload Resumption Supported` with the upload's URL (the
/// only way iOS's URLSession learns where to resume), its offset by `HEAD`, appends by
/// `PATCH`, cancellation by `DELETE` on that URL. The request that completes the upload gets
/// the answer a one-shot upload would: 201, 422 with the reason, 429 with `next_attempt_at`.
struct DraftUploads: Sendable {
    let api: APIContext
    let uploads: ResumableUploads

    /// Upload creation: `POST …/submissions` with `Upload-Draft-Interop-Version` and the
    /// completeness header.
    func create(_ request: Request, context: TilawaRequestContext, version: Int, studentId: String, slot: Slot) async throws -> Response {
        let completes = try DraftUploadProtocol.completes(request, version: version) ?? true
        let contentLength = request.headers[.contentLength].flatMap(Int64.init)
        let declared = try DraftUploadProtocol.integer(request, .uploadLength)
        let recordedAt = try SubmissionRoutes.recordedAt(request, context: context)
        let key = try SubmissionRoutes.idempotencyKey(request)
        // The key, then the rule's prechecks, before anything is created or read.
        _ = try await api.checkBeforeBody(request, context: context, studentId: studentId, slot: slot, key: key, resumableCreation: true)
        let length = declared ?? (completes ? contentLength : nil)
        let created: (upload: ResumableUploadRecord, isNew: Bool)
        do {
            created = try await uploads.create(.init(
                studentId: studentId, slot: slot, uploadProtocol: .ietf, length: length,
                fileExtension: SubmissionRoutes.fileExtension(for: request), fileName: nil, recordedAt: recordedAt, idempotencyKey: key))
        } catch {
            context.refuseBody(of: request)
            throw error
        }
        let upload = created.upload
        guard created.isNew else {
            // The same Idempotency-Key: the client lost the answer; where the upload stands.
            context.refuseBody(of: request)
            if upload.state == .answered {
                var headers = DraftUploadProtocol.stateHeaders(offset: upload.offset, length: upload.length, complete: true, version: version)
                headers[.idempotentReplayed] = "true"
                return try await api.currentAnswer(status: upload.answerStatus ?? 500, body: upload.answerBody ?? Data(),
                                                   instance: ResumableUploads.path(of: upload.id)).response(adding: headers)
            }
            return try await state(of: upload, version: version, status: .created, context: context)
        }
        let location = ResumableUploads.path(of: upload.id)
        // 104 before the body: a client cut off half-way knows where to resume.
        if let channel = context.channel {
            var interim = HTTPResponse(status: .init(code: 104, reasonPhrase: "Upload Resumption Supported"))
            interim.headerFields.append(contentsOf: DraftUploadProtocol.versionHeaders(version))
            interim.headerFields[.location] = location
            interim.headerFields.append(contentsOf: DraftUploadProtocol.limitHeaders(
                version: version, maxBytes: uploads.maxUploadBytes, expiresIn: upload.expiresAt.timeIntervalSince(api.now)))
            try await channel.writeAndFlush(HTTPResponsePart.head(interim)).get()
        }
        var response: Response
        do {
            response = try await appendDraft(upload, append: .init(offset: 0, declaredLength: declared, contentLength: contentLength, completes: completes),
                                             request: request, context: context, version: version)
        } catch {
            throw await refusedCreation(upload, error: error)
        }
        if response.status != .created || response.headers[.location] == nil { response.headers[.location] = location }
        if !completes { response.status = .created }
        return response
    }

    /// A creation whose first part was refused (no slot, a cut body, a checksum, a rule):
    /// an upload that kept no byte is cancelled, so it does not hold one of the student's
    /// open uploads for a day with no `Location` to cancel it by; one that kept bytes stays,
    /// and the refusal carries its `Location` so the client can resume or `DELETE` it.
    private func refusedCreation(_ upload: ResumableUploadRecord, error: any Error) async -> any Error {
        let location = ResumableUploads.path(of: upload.id)
        let kept = (try? await uploads.exclusively(upload.id) { () async throws -> Bool in
            guard let current = try await api.runtime.database.resumableUpload(id: upload.id), current.state == .receiving else { return true }
            guard current.offset == 0 else { return true }
            try await uploads.cancel(upload.id)
            return false
        }) ?? true
        guard kept, var problem = error as? APIProblem else { return error }
        problem.headers[.location] = location
        return problem
    }

    /// `HEAD /v1/uploads/{id}`: offset retrieval.
    func offset(_ request: Request, context: TilawaRequestContext, version: Int) async throws -> Response {
        let found = try await uploads.visibleUpload(context)
        // Under the lock: an append cut off a moment ago has recorded what it received.
        let upload = try await uploads.exclusively(found.id) { try await api.runtime.database.resumableUpload(id: found.id) } ?? found
        var response = try await state(of: upload, version: version, status: .noContent, context: context)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `PATCH /v1/uploads/{id}`: an append at `Upload-Offset`.
    func append(_ request: Request, context: TilawaRequestContext, version: Int) async throws -> Response {
        if version >= 6, request.headers[.contentType]?.lowercased() != DraftUploadProtocol.partialUploadMediaType {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "An append carries Content-Type: \(DraftUploadProtocol.partialUploadMediaType).")
        }
        guard let offset = try DraftUploadProtocol.integer(request, .uploadOffset) else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("invalid_upload_offset", "Upload-Offset must be the byte the body starts at.")
        }
        let completes = try DraftUploadProtocol.completes(request, version: version) ?? true
        let upload = try await uploads.visibleUpload(context)
        return try await appendDraft(upload, append: .init(offset: offset, declaredLength: try DraftUploadProtocol.integer(request, .uploadLength),
                                                           contentLength: request.headers[.contentLength].flatMap(Int64.init), completes: completes),
                                     request: request, context: context, version: version)
    }

    /// One append, under the upload's lock and an upload slot; the answer when it completes
    /// the upload, else 204 with the new offset.
    private func appendDraft(_ upload: ResumableUploadRecord, append: ResumableUploadRule.Append, request: Request,
                             context: TilawaRequestContext, version: Int) async throws -> Response {
        try await uploads.receiver.withSlot(request, context: context) {
            try await uploads.exclusively(upload.id, appending: context) {
                guard let current = try await api.runtime.database.resumableUpload(id: upload.id) else {
                    throw APIProblem.notFound("upload with this id")
                }
                let plan: ResumableUploadRule.Plan
                switch ResumableUploadRule.plan(append, progress: current.progress, maxUploadBytes: uploads.maxUploadBytes) {
                case let .success(accepted): plan = accepted
                case let .failure(refusal):
                    context.refuseBody(of: request)
                    var problem = ResumableUploads.problem(refusal, limit: uploads.maxUploadBytes)
                    for field in DraftUploadProtocol.stateHeaders(
                        offset: current.offset, length: current.length, complete: current.state != .receiving, version: version) {
                        problem.headers[field.name] = field.value
                    }
                    throw problem
                }
                let appended = try await uploads.append(current, plan: plan, request: request, context: context)
                guard appended.isComplete else {
                    var headers = DraftUploadProtocol.stateHeaders(offset: appended.progress.offset, length: appended.progress.length,
                                                                   complete: false, version: version)
                    headers.append(contentsOf: DraftUploadProtocol.limitHeaders(
                        version: version, maxBytes: uploads.maxUploadBytes, expiresIn: api.runtime.configuration.uploads.expiry))
                    return Response(status: .noContent, headers: headers)
                }
                let answer = try await uploads.complete(current.id, logger: context.logger)
                return await uploads.answering(answer.response(adding: DraftUploadProtocol.stateHeaders(
                    offset: appended.progress.offset, length: appended.progress.length, complete: true, version: version)),
                    answer: answer, uploadId: current.id, context: context)
            }
        }
    }

    /// Where `upload` stands, in the draft's headers: the answer itself once it is complete.
    private func state(of upload: ResumableUploadRecord, version: Int, status: HTTPResponse.Status, context: TilawaRequestContext) async throws -> Response {
        switch upload.state {
        case .receiving:
            var headers = DraftUploadProtocol.stateHeaders(offset: upload.offset, length: upload.length, complete: false, version: version)
            headers.append(contentsOf: DraftUploadProtocol.limitHeaders(
                version: version, maxBytes: uploads.maxUploadBytes, expiresIn: upload.expiresAt.timeIntervalSince(api.now)))
            headers[.location] = ResumableUploads.path(of: upload.id)
            return Response(status: status, headers: headers)
        case .completing, .answered:
            var headers = DraftUploadProtocol.stateHeaders(offset: upload.offset, length: upload.length, complete: true, version: version)
            headers[.location] = ResumableUploads.path(of: upload.id)
            return Response(status: status, headers: headers)
        }
    }
}
