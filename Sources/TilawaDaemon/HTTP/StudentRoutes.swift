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
        group.get("coaches/:id/queue", use: queue)
    }

    @Sendable func timeline(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        try await api.access.requireStudent(studentId, for: principal)
        guard let data = try await api.runtime.database.timeline(studentId: studentId, policy: api.runtime.policy) else {
            throw APIProblem.unknownStudent
        }
        return try api.json(TimelineResource(data, now: api.now))
    }

    @Sendable func events(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        // The feed is the student's own (and ops'); coaches read the queue instead.
        try await api.access.requireStudent(studentId, for: principal, roles: [.student, .ops])
        let query = request.uri.queryParameters
        let after = try query.get("after").map { text -> Int64 in
            guard let value = EventCursor(text) else {
                throw APIProblem.badRequest("invalid_cursor", "The cursor must be a cursor from a previous answer (1 to 18 digits).")
            }
            return value.sequence
        } ?? 0
        let limit = try query.get("limit").map { text -> Int in
            guard let value = Int(text), (1...500).contains(value) else { throw APIProblem.badRequest("invalid_limit", "The limit must be 1 to 500.") }
            return value
        } ?? 100
        let records = try await api.runtime.database.events(studentId: studentId, after: after, limit: limit)
        return try api.json(EventFeed(records: records, after: after))
    }

    @Sendable func queue(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let coachId = try api.identifier("id", in: context)
        try await api.access.requireCoach(coachId, for: principal)
        let items = try await api.runtime.database.coachQueue(coachId: coachId)
        return try api.json(CoachQueueResource(coachId: coachId, items: items, now: api.now, due: api.runtime.configuration.program.feedbackDue))
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
