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
        group.post("students/:id/extensions", use: extend)
        group.post("students/:id/attempt-grants", use: grant)
        group.put("students/:id/enrolment", use: changeEnrolment)
        group.post("feedback/:id/move", use: moveFeedback)
        group.post("coaches/:id/cover", use: cover)
        group.get("audit", use: audit)
        group.post("students/:id/erasure", use: erase)
    }

    /// `POST /v1/students/{id}/erasure` `{reason, force?}` (ops) → 200 with what was removed.
    /// Refused (409 `open_enrolment`) while an enrolment runs, unless `force`.
    @Sendable func erase(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(request, context: context, members: ["reason", "force"],
                                           shape: "{\"reason\": \"…\", \"force\"?: true}")
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
        let (actor, body, raw) = try await read(request, context: context, members: ["week", "due_at", "reason"],
                                           shape: "{\"week\": 3 or \"eoc\", \"due_at\": \"2027-03-24T23:59:00-04:00\", \"reason\": \"…\"}")
        let studentId = try api.identifier("id", in: context)
        let slot = try body.slot("week")
        let dueAt = try body.instant("due_at")
        return try await answer(.extend(studentId: studentId, slot: slot, dueAt: dueAt), by: actor, reason: try body.reason(),
                                request: request, body: raw, context: context)
    }

    /// `POST /v1/students/{id}/attempt-grants` `{count, expires_at, reason}` → 201.
    @Sendable func grant(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(request, context: context, members: ["count", "expires_at", "reason"],
                                           shape: "{\"count\": 1, \"expires_at\": \"2027-03-31T00:00:00Z\", \"reason\": \"…\"}")
        let studentId = try api.identifier("id", in: context)
        let count = try body.integer("count")
        let expiresAt = try body.instant("expires_at")
        return try await answer(.grant(studentId: studentId, count: count, expiresAt: expiresAt), by: actor, reason: try body.reason(),
                                request: request, body: raw, context: context)
    }

    /// `PUT /v1/students/{id}/enrolment` `{coach_id?, level_id?, state?, reason}` → 200.
    @Sendable func changeEnrolment(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let (actor, body, raw) = try await read(request, context: context, members: ["coach_id", "level_id", "state", "reason"],
                                           shape: "{\"coach_id\"?: \"C02\", \"level_id\"?: \"L2\", \"state\"?: \"active\" | \"paused\" | \"left\", \"reason\": \"…\"}")
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
        let (actor, body, raw) = try await read(request, context: context, members: ["submission_id", "reason"],
                                           shape: "{\"submission_id\": \"sub_…\", \"reason\": \"…\"}")
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
        let (actor, body, raw) = try await read(request, context: context, members: ["covering_coach_id", "until", "reason"],
                                           shape: "{\"covering_coach_id\": \"C02\", \"until\": \"2027-04-01T00:00:00Z\", \"reason\": \"…\"}")
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
        let principal = try context.requirePrincipal()
        guard principal.role == .ops else { throw APIProblem.forbidden("Only operations read the audit log.") }
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

    /// The operator, and the JSON body with only `members`; 403 for anyone but operations
    /// (the body unread), 415 for another media type, 400 `invalid_body` for anything else.
    private func read(_ request: Request, context: TilawaRequestContext, members: Set<String>, shape: String) async throws
        -> (String, BackOfficeBody, Data)
    {
        let principal = try context.requirePrincipal()
        guard principal.role == .ops else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only operations use the back office.")
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            context.refuseBody(of: request)
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send application/json: \(shape).")
        }
        let data = Data(try await request.body.collect(upTo: 16_384).readableBytesView)
        guard let object = try? JSONDecoder().decode([String: BackOfficeBody.BodyValue].self, from: data),
              Set(object.keys).isSubset(of: members) else {
            throw APIProblem.badRequest("invalid_body", "The body must be \(shape).")
        }
        return (principal.subject, BackOfficeBody(object: object), data)
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

/// A back-office request's members, each read with a 400 or 422 that names it.
struct BackOfficeBody {
    let object: [String: BodyValue]

    /// One member's JSON value, its type kept (a `true` is not a 1).
    enum BodyValue: Decodable, Equatable {
        case null, bool(Bool), integer(Int), number(Double), text(String), other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .integer(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .text(value)
            } else {
                self = .other
            }
        }

        var text: String? { if case let .text(value) = self { value } else { nil } }
    }

    /// The required `reason`: 1–500 characters of text, no control characters but line breaks.
    func reason() throws -> String {
        guard let text = object["reason"]?.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw APIProblem(.unprocessableContent, code: "reason_required", detail: "Say why in \"reason\": it is kept in the audit log.")
        }
        try Self.checkReason(text)
        return text
    }

    static func checkReason(_ text: String) throws {
        guard text.count <= 500,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) else {
            throw APIProblem(.unprocessableContent, code: "invalid_reason", detail: "reason must be at most 500 characters of text.")
        }
    }

    /// `week`: 1…15 (number or text) or `"eoc"`.
    func slot(_ name: String) throws -> Slot {
        let text: String? = switch object[name] {
        case let .integer(number)?: String(number)
        case let .text(string)?: string
        default: nil
        }
        guard let text, let slot = try? Slot(parsing: text, weekCount: 99), slot != .assessment else {
            throw APIProblem(.unprocessableContent, code: "invalid_week", detail: "\(name) must be a week number or \"eoc\".")
        }
        return slot
    }

    func instant(_ name: String) throws -> Date {
        guard let text = object[name]?.text, let date = RecordedAt(parsing: text)?.claimed else {
            throw APIProblem(.unprocessableContent, code: "invalid_\(name)", detail: "\(name) must be an RFC 3339 instant, e.g. 2027-03-24T23:59:00-04:00.")
        }
        return date
    }

    func integer(_ name: String) throws -> Int {
        guard case let .integer(value)? = object[name] else {
            throw APIProblem(.unprocessableContent, code: "invalid_\(name)", detail: "\(name) must be a whole number.")
        }
        return value
    }

    func optionalIdentifier(_ name: String) throws -> String? {
        guard let value = object[name], !(value == .null) else { return nil }
        guard let text = value.text, Identifier(rawValue: text) != nil else {
            throw APIProblem.badRequest("invalid_identifier", "\(name) is not a valid id.")
        }
        return text
    }

    func optionalState(_ name: String) throws -> RuleOverrides.Standing? {
        guard let value = object[name], !(value == .null) else { return nil }
        guard let text = value.text, let state = RuleOverrides.Standing(rawValue: text) else {
            throw APIProblem(.unprocessableContent, code: "invalid_state", detail: "state must be active, paused or left.")
        }
        return state
    }
}

/// One audit entry as the API and `tilawa audit --json` show it.
public struct AuditEntryResource: Encodable, Sendable {
    let id: String
    let at: Date
    let actor: String
    let action: String
    let studentId: String?
    let otherStudentId: String?
    let coachId: String?
    let otherCoachId: String?
    let reason: String?
    let before: [String: MessageValue]?
    let after: [String: MessageValue]?

    public init(_ record: AuditRecord) {
        self.init(AuditPage.Entry(id: "audit:\(record.id ?? 0)", at: record.at, actor: record.actor, action: record.action,
                                  studentId: record.studentId, otherStudentId: record.otherStudentId, coachId: record.coachId,
                                  otherCoachId: record.otherCoachId, reason: record.reason, before: record.before, after: record.after))
    }

    public init(_ entry: AuditPage.Entry) {
        func object(_ text: String?) -> [String: MessageValue]? {
            text.flatMap { try? JSONDecoder().decode([String: MessageValue].self, from: Data($0.utf8)) }
        }
        id = entry.id
        at = entry.at
        actor = entry.actor
        action = entry.action
        studentId = entry.studentId
        otherStudentId = entry.otherStudentId
        coachId = entry.coachId
        otherCoachId = entry.otherCoachId
        reason = entry.reason
        before = object(entry.before)
        after = object(entry.after)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(at, forKey: .at)
        try container.encode(actor, forKey: .actor)
        try container.encode(action, forKey: .action)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(otherStudentId, forKey: .otherStudentId)
        try container.encode(coachId, forKey: .coachId)
        try container.encode(otherCoachId, forKey: .otherCoachId)
        try container.encode(reason, forKey: .reason)
        try container.encode(before, forKey: .before)
        try container.encode(after, forKey: .after)
    }

    enum CodingKeys: String, CodingKey {
        case id, at, actor, action, reason, before, after
        case studentId = "student_id"
        case otherStudentId = "other_student_id"
        case coachId = "coach_id"
        case otherCoachId = "other_coach_id"
    }
}

extension AuditEntryResource {
    /// One line for a terminal: `2027-03-04T10:00:00Z  amina  deadline_extended  student S1001  "ill"  due_at: … → …`.
    public var line: String {
        var parts = [at.formatted(.iso8601), actor, action]
        if let studentId { parts.append("student \(studentId)" + (otherStudentId.map { " (from \($0))" } ?? "")) }
        if let coachId { parts.append("coach \(coachId)" + (otherCoachId.map { " (and \($0))" } ?? "")) }
        if let reason { parts.append("\"\(reason.replacingOccurrences(of: "\n", with: " "))\"") }
        let keys = Set((before ?? [:]).keys).union((after ?? [:]).keys).sorted()
        for key in keys where before?[key] != after?[key] {
            parts.append("\(key): \(before?[key].map(Self.text) ?? "–") → \(after?[key].map(Self.text) ?? "–")")
        }
        return parts.joined(separator: "  ")
    }

    static func text(_ value: MessageValue) -> String {
        switch value {
        case let .text(text): text
        case let .int(number): String(number)
        case let .number(number): String(number)
        case let .instant(date): date.formatted(.iso8601)
        }
    }
}

/// `GET /v1/audit`'s answer.
struct AuditPageResource: Encodable, Sendable {
    let entries: [AuditEntryResource]
    let next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case entries, next }
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
