import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// A student's timeline and notification feed; a coach's queue.
struct StudentRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("students/:id/timeline", use: timeline)
        group.get("students/:id/events", use: events)
        group.post("students/:id/events/read", use: markRead)
        group.post("students/:id/events/:event_id/read", use: markOneRead)
        group.get("coaches/:id/queue", use: queue)
        group.get("coaches/:id/photo", use: coachPhoto)
        group.get("coaches/:id/events", use: coachEvents)
        group.put("students/:id/placement", use: place)
    }

    /// `PUT /v1/students/{id}/placement` (ops, or a placing coach):
    /// `{"level_id", "coach_id", "semester_id"?, "decided_by"?}`.
    ///
    /// Ops may name the placing coach who decided (`decided_by`). A coach places in their own
    /// name: `decided_by` is the caller, or absent; another value is 403
    /// `decided_by_not_caller`. A coach who may not place (not `places: true` while some
    /// coach is) is 403 `not_placing_coach` whatever the student, before the body; a student
    /// the placing coach may not see (`AccessPolicy.requireStudent`: the students they coach,
    /// and any student while awaiting placement) is 404 `unknown_student`, as on every route.
    @Sendable func place(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        let database = api.runtime.database
        switch principal.role {
        case .ops:
            break
        case .student:
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only operations and the coaches who place students record placements.")
        case .coach:
            guard try await database.coachMayPlace(coachId: principal.subject) else {
                context.refuseBody(of: request)
                let refusal = PlacementRefusal.notPlacingCoach(principal.subject)
                throw APIProblem(.forbidden, code: refusal.code, detail: refusal.message)
            }
            do {
                try await api.access.requireStudent(studentId, for: principal)
            } catch {
                context.refuseBody(of: request)
                throw error
            }
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "Send the placement as application/json: {\"level_id\": \"L2\", \"coach_id\": \"C01\"}.")
        }
        let placement = try await request.decodeJSON(
            as: PlacementBody.self, context: context, limit: 16_384,
            shape: "The body must be {\"level_id\": \"L2\", \"coach_id\": \"C01\"} with optional \"semester_id\" and \"decided_by\" (a placing coach's id).")
        let placer: AppDatabase.Placer
        if principal.role == .coach {
            if let decidedBy = placement.decidedBy, decidedBy != principal.subject {
                throw APIProblem(.forbidden, code: "decided_by_not_caller",
                                 detail: "A coach places in their own name: decided_by must be your own coach id (\(principal.subject)) or left out.")
            }
            placer = .coach(principal.subject)
        } else {
            placer = placement.decidedBy.map { .coach($0) } ?? .ops
        }
        switch try await database.placeStudent(
            studentId, levelId: placement.levelId, coachId: placement.coachId, semesterId: placement.semesterId, by: placer, now: api.now) {
        case let .success(enrolment):
            api.wakeup.signal()
            return try api.json(PlacementResource(enrolment))
        case let .failure(refusal):
            let status: HTTPResponse.Status = switch refusal {
            case .unknownStudent: .notFound
            case .semesterClosed, .notPlacingCoach, .alreadyPlaced, .genderMismatch: .conflict
            case .unknownLevel, .unknownCoach, .unknownSemester: .unprocessableContent
            }
            throw APIProblem(status, code: refusal.code, detail: refusal.message)
        }
    }

    @Sendable func timeline(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        try await api.access.requireStudent(studentId, for: principal)
        let semester = try request.uri.queryParameters.get("semester").map { text -> String in
            guard Identifier.isValid(text) else {
                throw APIProblem.badRequest("invalid_semester", "The semester must be a semester id (letters, digits, \"_\" or \"-\").")
            }
            return text
        }
        guard var data = try await api.runtime.database.timeline(
            studentId: studentId, semesterId: semester, policy: api.runtime.policy, now: api.now) else {
            if semester != nil {
                throw APIProblem(.notFound, code: "unknown_semester", detail: "The student has no enrolment in that semester.")
            }
            throw APIProblem.unknownStudent
        }
        // Each recording's marks; a student sees those of recordings whose reply is out.
        data.annotations = try await api.runtime.database.annotations(submissionIds: data.submissions.map(\.id),
                                                                      sentOnly: principal.role == .student)
        return try api.json(TimelineResource(data, now: api.now))
    }

    @Sendable func events(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        // The feed is the student's own (and ops'); coaches read the queue instead.
        try await api.access.requireStudent(studentId, for: principal, roles: [.student, .ops])
        let cursors = EventCursor(key: api.authority.cursorKey, recipient: .student(studentId))
        let (after, before, limit) = try cursors.page(request)
        let database = api.runtime.database
        if let before {
            let records = try await database.events(studentId: studentId, before: before, limit: limit)
            return try api.json(EventFeed(records: records, from: before, readState: try await database.readState(studentId: studentId),
                                          cursors: cursors))
        }
        let records = try await database.events(studentId: studentId, after: after ?? 0, limit: limit)
        return try api.json(EventFeed(records: records, from: after ?? 0, readState: try await database.readState(studentId: studentId),
                                      cursors: cursors))
    }

    /// `GET /v1/coaches/{id}/events` (that coach, ops): the coach's own notifications, paged
    /// like the student feed (`after` forwards, `before` backwards).
    @Sendable func coachEvents(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let coachId = try api.identifier("id", in: context)
        try await api.access.requireCoach(coachId, for: principal)
        let cursors = EventCursor(key: api.authority.cursorKey, recipient: .coach(coachId))
        let (after, before, limit) = try cursors.page(request)
        let database = api.runtime.database
        let records = if let before {
            try await database.coachEvents(coachId: coachId, before: before, limit: limit)
        } else {
            try await database.coachEvents(coachId: coachId, after: after ?? 0, limit: limit)
        }
        return try api.json(CoachEventFeed(records: records, from: before ?? after ?? 0, cursors: cursors))
    }

    /// `POST /v1/students/{id}/events/{event_id}/read` (the student): that one event is read;
    /// again changes nothing. An event not of this student's feed is 404 `unknown_event`.
    @Sendable func markOneRead(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        try await api.access.requireStudent(studentId, for: principal, roles: [.student])
        let eventId = try api.identifier("event_id", in: context)
        guard let state = try await api.runtime.database.markEventRead(studentId: studentId, eventId: eventId, now: api.now) else {
            throw APIProblem(.notFound, code: "unknown_event", detail: "This student's feed has no event \(eventId).")
        }
        return try api.json(ReadStateResource(state, cursors: EventCursor(key: api.authority.cursorKey, recipient: .student(studentId))))
    }

    /// `POST /v1/students/{id}/events/read` (the student): `{"cursor": "…"}` marks every event
    /// up to it read; the position never moves back.
    @Sendable func markRead(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        try await api.access.requireStudent(studentId, for: principal, roles: [.student])
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type", detail: "Send {\"cursor\": \"…\"} as application/json.")
        }
        let text = try await request.decodeJSON(as: CursorBody.self, context: context, limit: 16_384,
                                                shape: "The body must be {\"cursor\": \"…\"} with a cursor from the feed.").cursor
        let cursors = EventCursor(key: api.authority.cursorKey, recipient: .student(studentId))
        guard let position = cursors.position(of: text) else {
            throw APIProblem.badRequest("invalid_cursor", "The cursor must be one this student's feed gave in a previous answer.")
        }
        let state = try await api.runtime.database.markEventsRead(studentId: studentId, upTo: position, now: api.now)
        return try api.json(ReadStateResource(state, cursors: cursors))
    }

    /// `GET /v1/coaches/{id}/photo` (anyone signed in: students meet their coach by it): the
    /// image copied at import, with its content's `ETag`, revalidated (`no-cache`) because a
    /// re-import may replace it; 404 `no_photo` for a coach without one, `unknown_coach`.
    @Sendable func coachPhoto(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        _ = try context.requirePrincipal()
        let coachId = try api.identifier("id", in: context)
        guard try await api.runtime.database.coachExists(id: coachId) else { throw APIProblem.unknownCoach }
        guard let photo = try await api.runtime.database.coachPhoto(coachId: coachId) else {
            throw APIProblem(.notFound, code: "no_photo", detail: "This coach has no photo.")
        }
        // Beside the artifacts: in the state directory, or in the S3 store with them.
        var response = try await ArtifactResponder().respond(
            photo.path, in: api.runtime.stateDirectory.photoStore, id: String(photo.sha256.prefix(32)),
            contentType: photo.mediaType, request: request, context: context, cacheControl: "private, no-cache")
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    @Sendable func queue(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let coachId = try api.identifier("id", in: context)
        try await api.access.requireCoach(coachId, for: principal)
        let items = try await api.runtime.database.coachQueue(coachId: coachId, now: api.now)
        let questions = try await api.runtime.database.openQuestions(coachId: coachId, now: api.now)
        return try api.json(CoachQueueResource(coachId: coachId, items: items, questions: questions, now: api.now))
    }
}

/// The body of `PUT /v1/students/{id}/placement`: well-formed ids, of which `semester_id` and
/// `decided_by` may be left out; other members are ignored.
struct PlacementBody: Decodable {
    var levelId: String
    var coachId: String
    var semesterId: String?
    var decidedBy: String?

    enum CodingKeys: String, CodingKey {
        case levelId = "level_id"
        case coachId = "coach_id"
        case semesterId = "semester_id"
        case decidedBy = "decided_by"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        levelId = try container.decode(String.self, forKey: .levelId)
        coachId = try container.decode(String.self, forKey: .coachId)
        semesterId = try container.decodeIfPresent(String.self, forKey: .semesterId)
        decidedBy = try container.decodeIfPresent(String.self, forKey: .decidedBy)
        guard [levelId, coachId].allSatisfy(Identifier.isValid), semesterId.map(Identifier.isValid) ?? true,
              decidedBy.map(Identifier.isValid) ?? true else {
            throw DecodingError.notTheShape("not an id", in: decoder)
        }
    }
}

/// The body of `POST /v1/students/{id}/events/read`: `{"cursor": "…"}`, that member alone.
struct CursorBody: Decodable {
    var cursor: String

    enum CodingKeys: String, CodingKey { case cursor }

    init(from decoder: any Decoder) throws {
        guard try decoder.members(within: ["cursor"]) == ["cursor"] else { throw DecodingError.notTheShape("cursor is missing", in: decoder) }
        cursor = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .cursor)
    }
}

/// The answer of `PUT /v1/students/{id}/placement` and `tilawa placement set --json`: the
/// enrolment as recorded.
public struct PlacementResource: Encodable, Sendable {
    var studentId: String
    var semesterId: String
    var levelId: String?
    var coachId: String?
    var placedAt: Date?
    var placedBy: String?

    /// The resource of `enrolment`.
    public init(_ enrolment: EnrolmentRecord) {
        studentId = enrolment.studentId
        semesterId = enrolment.semesterId
        levelId = enrolment.levelId
        coachId = enrolment.coachId
        placedAt = enrolment.placedAt
        placedBy = enrolment.placedBy
    }
}

extension JSONDecoder {
    /// Decodes what `APIJSON.encoder` wrote.
    static var api: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
