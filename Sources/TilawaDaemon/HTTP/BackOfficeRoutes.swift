import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// The back office (DESIGN §11), for operations only: extensions, attempt grants, moving a
/// misfiled reply, enrolment changes, coach cover, and the audit log. Every action names its
/// `reason`; the operator is the token's (`tilawa token issue --ops NAME`, or the provider's
/// `oidc.ops_subjects` name). A student or a coach gets 403 on every route, before the body
/// is read. Every write takes an `Idempotency-Key` (`OperatorIdempotency`).
struct BackOfficeRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        // Operations only, refused before the body: each group its own sentence.
        group.group().add(middleware: RoleMiddleware(.ops, refusal: "Only operations use the back office."))
            .post("students/:id/extensions", use: extend)
            .post("students/:id/attempt-grants", use: grant)
            .put("students/:id/enrolment", use: changeEnrolment)
            .post("feedback/:id/move", use: moveFeedback)
            .post("coaches/:id/cover", use: cover)
            .post("students/:id/erasure", use: erase)
        group.group().add(middleware: RoleMiddleware(.ops, refusal: "Only operations read the audit log."))
            .get("audit", use: audit)
    }

    /// `POST /v1/students/{id}/erasure` `{reason, force?}` (ops) → 200 with what was removed.
    /// Refused (409 `open_enrolment`) while an enrolment runs, unless `force`.
    @Sendable func erase(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(ErasureForm.self, request, context: context)
        let studentId = try api.identifier("id", in: context)
        let reason = try body.reason()
        var force = false
        if let value = body.object["force"] {
            guard case let .bool(flag) = value else { throw APIProblem.badRequest("invalid_body", "force is true or false.") }
            force = flag
        }
        return try await OperatorIdempotency(api: api).run(request, operator: actor, body: raw) {
            switch try await api.runtime.database.erase(studentId: studentId, force: force, by: actor, reason: reason, now: api.now) {
            case let .failure(refusal):
                throw APIProblem(refusal == .unknownStudent(studentId) ? .notFound : .conflict, code: refusal.code, detail: refusal.message)
            case let .success(erasure):
                await api.removeArtifacts(erasure.files)
                // `by` is the operator's name, as the audit log has it.
                context.logger.notice("student erased", metadata: ["student": "\(api.runtime.pseudonyms.student(studentId))", "by": "\(actor)",
                                                                   "files": "\(erasure.files.count)"])
                return try OperatorIdempotency.json(ErasureResource(erasure))
            }
        }
    }

    /// `POST /v1/students/{id}/extensions` `{week, due_at, reason}` → 201 with the audit entry.
    @Sendable func extend(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(ExtensionForm.self, request, context: context)
        let studentId = try api.identifier("id", in: context)
        let slot = try body.slot("week")
        let dueAt = try body.instant("due_at")
        return try await answer(.extend(studentId: studentId, slot: slot, dueAt: dueAt), by: actor, reason: try body.reason(),
                                request: request, body: raw, context: context)
    }

    /// `POST /v1/students/{id}/attempt-grants` `{count, expires_at, reason}` → 201.
    @Sendable func grant(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(AttemptGrantForm.self, request, context: context)
        let studentId = try api.identifier("id", in: context)
        let count = try body.integer("count")
        let expiresAt = try body.instant("expires_at")
        return try await answer(.grant(studentId: studentId, count: count, expiresAt: expiresAt), by: actor, reason: try body.reason(),
                                request: request, body: raw, context: context)
    }

    /// `PUT /v1/students/{id}/enrolment` `{coach_id?, level_id?, state?, reason}` → 200.
    @Sendable func changeEnrolment(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(EnrolmentForm.self, request, context: context)
        let studentId = try api.identifier("id", in: context)
        let coachId = try body.optionalIdentifier("coach_id")
        let levelId = try body.optionalIdentifier("level_id")
        let state = try body.optionalState("state")
        guard coachId != nil || levelId != nil || state != nil else {
            throw APIProblem.badRequest("invalid_body", "Name at least one of coach_id, level_id and state.")
        }
        return try await answer(.changeEnrolment(studentId: studentId, coachId: coachId, levelId: levelId, state: state), by: actor,
                                reason: try body.reason(), status: .ok, request: request, body: raw, context: context)
    }

    /// `POST /v1/feedback/{id}/move` `{submission_id, reason}` → 201.
    @Sendable func moveFeedback(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(FeedbackMoveForm.self, request, context: context)
        let feedbackId = try api.identifier("id", in: context)
        guard let submissionId = try body.optionalIdentifier("submission_id") else {
            throw APIProblem.badRequest("invalid_body", "submission_id names the recording the reply belongs to.")
        }
        return try await answer(.moveFeedback(feedbackId: feedbackId, submissionId: submissionId), by: actor, reason: try body.reason(),
                                request: request, body: raw, context: context)
    }

    /// `POST /v1/coaches/{id}/cover` `{covering_coach_id, until, reason}` → 201; an `until` not
    /// after now ends the running cover.
    @Sendable func cover(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(CoverForm.self, request, context: context)
        let coachId = try api.identifier("id", in: context)
        guard let covering = try body.optionalIdentifier("covering_coach_id") else {
            throw APIProblem.badRequest("invalid_body", "covering_coach_id names the coach who covers.")
        }
        let until = try body.instant("until")
        return try await answer(.cover(coachId: coachId, coveringCoachId: covering, until: until), by: actor, reason: try body.reason(),
                                request: request, body: raw, context: context)
    }

    /// `GET /v1/audit?student=&coach=&since=&before=&limit=&cursor=` → `{entries, next}`, newest first.
    @Sendable func audit(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        func identifier(_ name: String) throws -> String? {
            guard let value = query.get(name) else { return nil }
            guard Identifier(rawValue: value) != nil else { throw APIProblem.badRequest("invalid_identifier", "\(name) is not a valid id.") }
            return value
        }
        func instant(_ name: String) throws -> Date? {
            guard let value = query.get(name) else { return nil }
            guard let date = RecordedAt(parsing: value)?.claimed else {
                throw APIProblem.badRequest("invalid_query", "\(name) must be an RFC 3339 instant, e.g. 2027-03-01T00:00:00Z.")
            }
            return date
        }
        let filter = AuditFilter(studentId: try identifier("student"), coachId: try identifier("coach"),
                                 since: try instant("since"), before: try instant("before"))
        var limit = 50
        if let text = query.get("limit") {
            guard let value = Int(text), (1...200).contains(value) else {
                throw APIProblem.badRequest("invalid_query", "limit must be a whole number from 1 to 200.")
            }
            limit = value
        }
        var cursor: AuditCursor?
        if let token = query.get("cursor") {
            guard let parsed = AuditCursor(token: token) else {
                throw APIProblem.badRequest("invalid_cursor", "This cursor was not made by this log; start again without it.")
            }
            cursor = parsed
        }
        let page = try await api.runtime.database.audit(filter, after: cursor, limit: limit)
        var next: String?
        if let after = page.next {
            var items = ["limit=\(limit)", "cursor=\(after.token)"]
            for name in ["student", "coach", "since", "before"] {
                if let value = query.get(name) { items.append("\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")") }
            }
            next = "/v1/audit?" + items.joined(separator: "&")
        }
        return try api.json(AuditPageResource(entries: page.entries.map(AuditEntryResource.init), next: next))
    }

    /// The operator (`RoleMiddleware` refused anyone else), the JSON body with only `Form`'s
    /// members, and its bytes; 415 for another media type (the body unread), 400
    /// `invalid_body` for anything else.
    private func read<Form: BackOfficeForm>(_ form: Form.Type, _ request: Request, context: TilawaRequestContext) async throws
        -> (String, BackOfficeBody, Data)
    {
        let principal = try context.requirePrincipal()
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send application/json: \(Form.shape).")
        }
        let body = try await request.decodeJSONBody(as: BackOfficeRequestBody<Form>.self, context: context, limit: 16_384,
                                                    shape: "The body must be \(Form.shape).")
        return (principal.subject, body.value.members, body.bytes)
    }

    /// Applies the action once per `Idempotency-Key` and answers with its audit entry, or its refusal.
    private func answer(_ action: BackOfficeAction, by actor: String, reason: String, status: HTTPResponse.Status = .created,
                        request: Request, body: Data, context: TilawaRequestContext) async throws -> Response {
        try await OperatorIdempotency(api: api).run(request, operator: actor, body: body) {
            try await apply(action, by: actor, reason: reason, status: status, context: context)
        }
    }

    /// Applies the action and answers with its audit entry, or its refusal.
    private func apply(_ action: BackOfficeAction, by actor: String, reason: String, status: HTTPResponse.Status,
                       context: TilawaRequestContext) async throws -> OperatorIdempotency.Answer {
        switch try await api.runtime.database.apply(action, by: actor, reason: reason, policy: api.runtime.policy, now: api.now) {
        case let .failure(refusal):
            throw APIProblem(refusal.kind.status, code: refusal.code, detail: refusal.message)
        case let .success(record):
            context.logger.info("back office", metadata: ["action": "\(record.action)", "by": "\(actor)", "audit": "\(record.id ?? 0)"])
            api.wakeup.signal()
            return try OperatorIdempotency.json(AuditEntryResource(record), status: status)
        }
    }
}

extension BackOfficeRefusal.Kind {
    var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .conflict: .conflict
        case .invalid: .unprocessableContent
        }
    }
}

/// `POST /v1/students/{id}/erasure`'s answer (and `tilawa erase --json`).
public struct ErasureResource: Encodable, Sendable {
    let studentId: String
    let recordings: Int
    let replies: Int
    let filesRemoved: Int
    let eventsRemoved: Int

    public init(_ erasure: Erasure) {
        studentId = erasure.studentId
        recordings = erasure.recordings
        replies = erasure.replies
        filesRemoved = erasure.files.count
        eventsRemoved = erasure.events
    }

    enum CodingKeys: String, CodingKey {
        case recordings, replies
        case studentId = "student_id"
        case filesRemoved = "files_removed"
        case eventsRemoved = "events_removed"
    }
}
