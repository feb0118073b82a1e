import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Resumable uploads' routes: tus 1.0's creation URL per student and slot, and the upload's
/// own URL (`/v1/uploads/{id}`), which answers in the protocol the upload was made with —
/// tus, or the IETF draft (whose creation is the submissions route itself, `DraftUploads`).
struct UploadRoutes: Sendable {
    let api: APIContext
    let uploads: ResumableUploads

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.on("students/:id/weeks/:slot/uploads", method: .options, use: capabilities)
        group.post("students/:id/weeks/:slot/uploads", use: create)
        group.on("uploads/:id", method: .options, use: capabilities)
        group.head("uploads/:id", use: offset)
        group.patch("uploads/:id", use: append)
        group.delete("uploads/:id", use: terminate)
        group.get("uploads/:id", use: outcome)
    }

    private var draft: DraftUploads { DraftUploads(api: api, uploads: uploads) }

    /// `OPTIONS` (no token needed): what this server speaks, both protocols.
    @Sendable func capabilities(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        var headers = TusProtocol.resumable
        headers[.tusVersion] = TusProtocol.version
        headers[.tusExtension] = TusProtocol.extensions
        headers[.tusMaxSize] = "\(uploads.maxUploadBytes)"
        headers[.tusChecksumAlgorithm] = TusProtocol.checksumAlgorithms
        if let version = try DraftUploadProtocol.version(of: request) {
            headers.append(contentsOf: DraftUploadProtocol.limitHeaders(version: version, maxBytes: uploads.maxUploadBytes, expiresIn: nil))
        }
        return Response(status: .noContent, headers: headers)
    }

    /// tus requires `Tus-Resumable: 1.0.0` on every request but `OPTIONS`: 412 otherwise.
    private func requireTus(_ request: Request, context: TilawaRequestContext) throws {
        guard request.headers[.tusResumable] == TusProtocol.version else {
            context.refuseBody(of: request)
            var problem = APIProblem(.preconditionFailed, code: "tus_version_unsupported",
                                     detail: "This server speaks tus \(TusProtocol.version); send Tus-Resumable: \(TusProtocol.version).")
            problem.headers[.tusVersion] = TusProtocol.version
            throw problem
        }
    }

    // MARK: Creation (tus)

    /// `POST /v1/students/{id}/weeks/{slot}/uploads` (tus creation, with or without a first part).
    @Sendable func create(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        try requireTus(request, context: context)
        let recordedAt = try SubmissionRoutes.recordedAt(request, context: context)
        let key = try SubmissionRoutes.idempotencyKey(request)
        let (studentId, slot) = try await uploads.creationTarget(request, context: context, key: key, bodyIsRecording: false)
        guard request.headers[.uploadDeferLength] == nil else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("upload_length_required", "Send Upload-Length: this server does not take uploads of unknown length over tus.")
        }
        guard let length = TusProtocol.count(request.headers[.uploadLength]) else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("upload_length_required", "Upload-Length must be the recording's size in bytes.")
        }
        guard let metadata = TusProtocol.metadata(request.headers[.uploadMetadata]) else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("invalid_upload_metadata", "Upload-Metadata must be comma-separated `key base64value` pairs.")
        }
        let declaredType = metadata["filetype"] ?? metadata["content_type"] ?? metadata["contentType"]
        if let declaredType, !UploadReceiver.acceptsMediaType(declaredType.lowercased()) {
            context.refuseBody(of: request)
            throw APIProblem.notAudio("The upload is \(declaredType), not audio. Send the recording itself (audio/*).")
        }
        let (upload, isNew) = try await uploads.create(.init(
            studentId: studentId, slot: slot, uploadProtocol: .tus, length: length,
            fileExtension: Self.fileExtension(type: declaredType, name: metadata["filename"]), fileName: metadata["filename"],
            recordedAt: recordedAt, idempotencyKey: key))
        var headers = TusProtocol.resumable
        headers[.location] = ResumableUploads.path(of: upload.id)
        headers[.uploadExpires] = TusProtocol.httpDate(upload.expiresAt)
        if !isNew { headers[.idempotentReplayed] = "true" }
        // creation-with-upload: the body is the first part.
        let hasBody = length > 0 && request.headers[.contentType]?.lowercased() == TusProtocol.patchMediaType
            && (request.headers[.contentLength].flatMap(Int64.init) ?? 1) > 0
        guard hasBody, isNew else {
            // A body that is not a first part (or belongs to an upload made before) is not read;
            // an empty chunked one is left to the server to drain.
            if (request.headers[.contentLength].flatMap(Int.init) ?? 0) > 0 { context.refuseBody(of: request) }
            headers[.uploadOffset] = "\(upload.offset)"
            if isNew, length == 0 {
                // Nothing to send: the upload is whole at creation and judged now (as `empty`).
                let answer = try await uploads.exclusively(upload.id) { try await uploads.complete(upload.id, logger: context.logger) }
                // tus answers a completion with links, not the outcome: a refusal is told.
                await uploads.tellRefusal(answer, uploadId: upload.id, logger: context.logger)
                headers.append(contentsOf: Self.outcomeLinks(uploadId: upload.id, answer: answer))
            }
            return Response(status: .created, headers: headers)
        }
        // The upload exists whatever happens to its first part: the answer is 201 with its
        // `Location` and the offset kept (tus creation-with-upload), so a client never loses
        // the URL of an upload that counts against its open uploads.
        do {
            for field in try await appendTus(upload, offset: 0, request: request, context: context) {
                // `Link` may come twice (outcome, submission); the others replace the creation's.
                if field.name == .link { headers.append(field) } else { headers[field.name] = field.value }
            }
        } catch {
            context.logger.notice("first part not kept", metadata: ["upload": "\(upload.id)", "error": "\(error)"])
            let offset = try await api.runtime.database.resumableUpload(id: upload.id)?.offset ?? 0
            headers[.uploadOffset] = "\(offset)"
        }
        return Response(status: .created, headers: headers)
    }

    // MARK: The upload's URL

    /// `HEAD /v1/uploads/{id}`: the durable offset.
    @Sendable func offset(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        if let version = try DraftUploadProtocol.version(of: request) { return try await draft.offset(request, context: context, version: version) }
        try requireTus(request, context: context)
        let found = try await uploads.visibleUpload(context)
        // Under the lock: an append cut off a moment ago has recorded what it received.
        let upload = try await uploads.exclusively(found.id) { try await api.runtime.database.resumableUpload(id: found.id) } ?? found
        var headers = TusProtocol.resumable
        headers[.uploadOffset] = "\(upload.offset)"
        if let length = upload.length { headers[.uploadLength] = "\(length)" }
        headers[.uploadExpires] = TusProtocol.httpDate(upload.expiresAt)
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    /// `PATCH /v1/uploads/{id}`: appends at `Upload-Offset`; the part that completes the
    /// upload is judged at once, and the answer links to the outcome.
    @Sendable func append(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        if let version = try DraftUploadProtocol.version(of: request) { return try await draft.append(request, context: context, version: version) }
        try requireTus(request, context: context)
        guard request.headers[.contentType]?.lowercased() == TusProtocol.patchMediaType else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "A tus PATCH carries Content-Type: \(TusProtocol.patchMediaType).")
        }
        guard let offset = TusProtocol.count(request.headers[.uploadOffset]) else {
            context.refuseBody(of: request)
            throw APIProblem.badRequest("invalid_upload_offset", "Upload-Offset must be the byte the body starts at.")
        }
        let upload = try await uploads.visibleUpload(context)
        var headers = TusProtocol.resumable
        headers.append(contentsOf: try await appendTus(upload, offset: offset, request: request, context: context))
        return Response(status: .noContent, headers: headers)
    }

    /// One tus append (a `PATCH`, or the body of a creation): holds the upload, checks the
    /// plan and the checksum, and completes the upload when its last byte arrives. Returns
    /// the headers of the answer (offset, expiry, the outcome's links).
    private func appendTus(_ upload: ResumableUploadRecord, offset: Int64, request: Request, context: TilawaRequestContext) async throws -> HTTPFields {
        var checksum: UploadChecksum?
        if let header = request.headers[.uploadChecksum] {
            switch UploadChecksum.parse(header) {
            case let .success(parsed): checksum = parsed
            case .failure(.unsupported):
                context.refuseBody(of: request)
                throw APIProblem.badRequest("checksum_algorithm_unsupported", "Upload-Checksum may use \(TusProtocol.checksumAlgorithms).")
            case .failure(.malformed):
                context.refuseBody(of: request)
                throw APIProblem.badRequest("invalid_upload_checksum", "Upload-Checksum must be `<algorithm> <base64 digest>`.")
            }
        }
        let contentLength = request.headers[.contentLength].flatMap(Int64.init)
        return try await uploads.receiver.withSlot(request, context: context) {
            try await uploads.exclusively(upload.id, appending: context) {
                // Read again under the lock: another request may have moved it.
                guard let current = try await api.runtime.database.resumableUpload(id: upload.id) else {
                    throw APIProblem.notFound("upload with this id")
                }
                let plan: ResumableUploadRule.Plan
                switch ResumableUploadRule.plan(.init(offset: offset, contentLength: contentLength), progress: current.progress,
                                                maxUploadBytes: uploads.maxUploadBytes) {
                case let .success(accepted): plan = accepted
                case let .failure(refusal):
                    context.refuseBody(of: request)
                    throw ResumableUploads.problem(refusal, limit: uploads.maxUploadBytes)
                }
                let appended = try await uploads.append(current, plan: plan, request: request, context: context, checksum: checksum)
                var headers: HTTPFields = [.uploadOffset: "\(appended.progress.offset)"]
                guard appended.isComplete else {
                    headers[.uploadExpires] = TusProtocol.httpDate(api.now + api.runtime.configuration.uploads.expiry)
                    return headers
                }
                let answer = try await uploads.complete(current.id, logger: context.logger)
                await uploads.tellRefusal(answer, uploadId: current.id, logger: context.logger)
                headers.append(contentsOf: Self.outcomeLinks(uploadId: current.id, answer: answer))
                return headers
            }
        }
    }

    /// `Link`s to where the outcome of a complete upload is read: the upload's URL (the
    /// submission or the problem), and the submission itself when it was accepted.
    static func outcomeLinks(uploadId: String, answer: UploadAnswer) -> HTTPFields {
        var headers: HTTPFields = [.link: "<\(ResumableUploads.path(of: uploadId))>; rel=\"outcome\""]
        if let submissionId = answer.submissionId {
            headers.append(HTTPField(name: .link, value: "</v1/submissions/\(submissionId)>; rel=\"submission\""))
        }
        return headers
    }

    /// `DELETE /v1/uploads/{id}` (tus termination, the draft's cancellation).
    @Sendable func terminate(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let version = try DraftUploadProtocol.version(of: request)
        let upload = try await uploads.visibleUpload(context)
        // The draft's cancellation may come without its version field (URLSession sends only
        // the token): the upload's own protocol decides; tus still requires Tus-Resumable.
        if version == nil, upload.uploadProtocol == .tus { try requireTus(request, context: context) }
        // Checked under the lock: a last part being judged right now makes it whole.
        try await uploads.exclusively(upload.id) { try await uploads.cancel(upload.id) }
        var headers = version.map { DraftUploadProtocol.versionHeaders($0) } ?? TusProtocol.resumable
        headers[.contentLength] = "0"
        return Response(status: .noContent, headers: headers)
    }

    /// `GET /v1/uploads/{id}`: the outcome of a complete upload — the submission (200) or the
    /// problem it met — or, while bytes are still awaited, 202 with its progress.
    @Sendable func outcome(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let upload = try await uploads.visibleUpload(context)
        switch upload.state {
        case .receiving:
            return try api.json(UploadResource(upload), status: .accepted)
        case .completing:
            // A process died while judging it: judge it now (the answer is kept for next time).
            let answer = try await uploads.exclusively(upload.id) { try await uploads.complete(upload.id, logger: context.logger) }
            return await uploads.answering(Self.outcomeResponse(answer), answer: answer, uploadId: upload.id, context: context)
        case .answered:
            // From the recording's present: withdrawn since is 410, not the body kept at acceptance.
            return Self.outcomeResponse(try await api.currentAnswer(status: upload.answerStatus ?? 500, body: upload.answerBody ?? Data(),
                                                                    instance: ResumableUploads.path(of: upload.id)))
        }
    }

    /// The outcome as a read: an accepted recording is 200 with the submission (`Content-Location` names it).
    static func outcomeResponse(_ answer: UploadAnswer) -> Response {
        var answer = answer
        if answer.status == .created {
            answer.status = .ok
            answer.headers[.contentLocation] = answer.headers[.location]
            answer.headers[.location] = nil
        }
        return answer.response()
    }

    /// An extension for the original, from the declared type or the file name.
    static func fileExtension(type: String?, name: String?) -> String {
        if let type, case let ext = SubmissionRoutes.fileExtension(forMediaType: type), ext != "upload" { return ext }
        let fromName = (name.map { URL(fileURLWithPath: $0).pathExtension.lowercased() } ?? "").filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return fromName.isEmpty || fromName.count > 8 ? "upload" : fromName
    }
}

/// `GET /v1/uploads/{id}` while bytes are still awaited.
struct UploadResource: Encodable, Sendable {
    var id: String
    var state: String
    var `protocol`: String
    var offset: Int64
    var length: Int64?
    var expiresAt: Date

    init(_ upload: ResumableUploadRecord) {
        id = upload.id
        state = upload.state.rawValue
        self.protocol = upload.uploadProtocol.rawValue
        offset = upload.offset
        length = upload.length
        expiresAt = upload.expiresAt
    }
}
