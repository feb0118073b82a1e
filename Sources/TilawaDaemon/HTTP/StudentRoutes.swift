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

/// `GET /v1/coaches/{id}/queue`: the `CoachQueue` schema of openapi/openapi.yaml.
struct CoachQueueResource: Encodable {
    /// One waiting submission and how long it has waited.
    struct Item: Encodable {
        var submission: Submission
        var ageSeconds: Int
        var dueAt: Date
        var overdue: Bool

        enum CodingKeys: String, CodingKey {
            case submission, overdue
            case ageSeconds = "age_seconds"
            case dueAt = "due_at"
        }
    }

    /// The `QueueSubmission` schema: the submission's summary and whose it is.
    struct Submission: Encodable {
        var id: String
        var state: SubmissionState
        var receivedAt: Date
        var late: Bool
        var links: [String: String]
        var studentId: String
        var studentName: String
        var week: Int?
        var kind: SubmissionKind

        enum CodingKeys: String, CodingKey {
            case id, state, late, links, week, kind
            case receivedAt = "received_at"
            case studentId = "student_id"
            case studentName = "student_name"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(state, forKey: .state)
            try container.encode(receivedAt, forKey: .receivedAt)
            try container.encode(late, forKey: .late)
            try container.encode(links, forKey: .links)
            try container.encode(studentId, forKey: .studentId)
            try container.encode(studentName, forKey: .studentName)
            try container.encode(week, forKey: .week)
            try container.encode(kind, forKey: .kind)
        }
    }

    var coachId: String
    var items: [Item]

    init(coachId: String, items: [QueueItem], now: Date, due: TimeInterval) {
        self.coachId = coachId
        self.items = items.map { item in
            let record = item.submission
            let dueAt = record.receivedAt.addingTimeInterval(due)
            let base = "/v1/submissions/\(record.id)"
            var links = ["self": base, "audio": base + "/audio", "waveform": base + "/waveform", "feedback": base + "/feedback"]
            if let id = Identifier(rawValue: record.id) { links["app"] = DeepLink.submission(record.slot, id: id).absoluteString }
            let submission = Submission(id: record.id, state: record.state, receivedAt: record.receivedAt, late: record.late, links: links,
                                        studentId: record.studentId, studentName: item.studentName, week: record.week, kind: record.kind)
            return Item(submission: submission, ageSeconds: max(0, Int(now.timeIntervalSince(record.receivedAt))), dueAt: dueAt,
                        overdue: now > dueAt)
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
