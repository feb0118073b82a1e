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
        try api.access.requireStudent(studentId, for: principal)
        guard let data = try api.runtime.database.timeline(studentId: studentId, policy: api.runtime.policy) else {
            throw APIProblem.unknownStudent
        }
        return try api.json(TimelineResource(data, now: api.now))
    }

    @Sendable func events(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        // The feed is the student's own (and ops'); coaches read the queue instead.
        try api.access.requireStudent(studentId, for: principal, roles: [.student, .ops])
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
        let records = try api.runtime.database.events(studentId: studentId, after: after, limit: limit)
        return try api.json(EventFeed(records: records, after: after))
    }

    @Sendable func queue(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let coachId = try api.identifier("id", in: context)
        try api.access.requireCoach(coachId, for: principal)
        let items = try api.runtime.database.coachQueue(coachId: coachId)
        return try api.json(CoachQueueResource(coachId: coachId, items: items, now: api.now, due: api.runtime.configuration.program.feedbackDue))
    }
}

/// A position in an event feed as clients send it: 1 to 18 decimal digits (any such number
/// fits an `Int64`), exactly the `Cursor` schema of `openapi/openapi.yaml`.
struct EventCursor {
    let sequence: Int64

    init?(_ text: String) {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int64(text) else { return nil }
        sequence = value
    }
}

/// `GET /v1/students/{id}/events`.
struct EventFeed: Encodable {
    var events: [EventFeedItem]
    /// Opaque to clients (today the last event's sequence number as text).
    var nextCursor: String

    init(records: [EventRecord], after: Int64) {
        events = records.compactMap(EventFeedItem.init)
        nextCursor = String(records.last?.seq ?? after)
    }

    enum CodingKeys: String, CodingKey {
        case events
        case nextCursor = "next_cursor"
    }
}

/// One event of the feed: its payload plus the cursor to continue from.
struct EventFeedItem: Encodable {
    var cursor: Int64
    var payload: EventPayload

    init?(_ record: EventRecord) {
        guard let seq = record.seq, let payload = try? JSONDecoder.api.decode(EventPayload.self, from: record.payload) else { return nil }
        cursor = seq
        self.payload = payload
    }

    func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: CursorKey.self)
        try container.encode(String(cursor), forKey: .cursor)
    }

    enum CursorKey: String, CodingKey { case cursor }
}

/// `GET /v1/coaches/{id}/queue`.
struct CoachQueueResource: Encodable {
    struct Item: Encodable {
        var submissionId: String
        var studentId: String
        var studentName: String
        var week: Int?
        var kind: SubmissionKind
        var receivedAt: Date
        var late: Bool
        var ageSeconds: Int
        var dueAt: Date
        var overdue: Bool
        var links: [String: String]

        enum CodingKeys: String, CodingKey {
            case week, kind, late, overdue, links
            case submissionId = "submission_id"
            case studentId = "student_id"
            case studentName = "student_name"
            case receivedAt = "received_at"
            case ageSeconds = "age_seconds"
            case dueAt = "due_at"
        }
    }

    var coachId: String
    var items: [Item]

    init(coachId: String, items: [QueueItem], now: Date, due: TimeInterval) {
        self.coachId = coachId
        self.items = items.map { item in
            let submission = item.submission
            let dueAt = submission.receivedAt.addingTimeInterval(due)
            return Item(submissionId: submission.id, studentId: submission.studentId, studentName: item.studentName,
                        week: submission.week, kind: submission.kind, receivedAt: submission.receivedAt, late: submission.late,
                        ageSeconds: max(0, Int(now.timeIntervalSince(submission.receivedAt))), dueAt: dueAt, overdue: now > dueAt,
                        links: ["submission": "/v1/submissions/\(submission.id)", "audio": "/v1/submissions/\(submission.id)/audio",
                                "feedback": "/v1/submissions/\(submission.id)/feedback"])
        }
    }

    enum CodingKeys: String, CodingKey {
        case items
        case coachId = "coach_id"
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
