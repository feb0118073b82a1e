import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// Announcements from the programme (DESIGN §14): ops write one for everyone, a level, a
/// semester or a coach's students, now or at `publish_at`; each student of the audience (as it
/// is then) gets one `announcement` event. One not yet published can be cancelled.
struct AnnouncementRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        // Operations only, refused before the body.
        group.group().add(middleware: RoleMiddleware(.ops, refusal: "Only operations write announcements."))
            .post("announcements", use: create)
        group.group().add(middleware: RoleMiddleware(.ops, refusal: "Only operations cancel announcements."))
            .delete("announcements/:id", use: cancel)
    }

    /// `POST /v1/announcements` (ops): `{title, body, audience, publish_at?}` → 202 with the
    /// announcement; published at once when `publish_at` is absent or past. Takes an
    /// `Idempotency-Key` (`OperatorIdempotency`).
    @Sendable func create(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "Send the announcement as application/json: {\"title\", \"body\", \"audience\", \"publish_at\"?}.")
        }
        let sent = try await request.decodeJSONBody(as: AnnouncementBody.self, context: context, limit: 16_384, shape: AnnouncementBody.shape)
        let (title, body) = (sent.value.title, sent.value.body)
        guard let audience = sent.value.audience else {
            throw APIProblem(.unprocessableContent, code: "invalid_audience",
                             detail: "The audience must be one of {\"all\": true}, {\"level\": ID}, {\"semester\": ID}, {\"coach\": ID}.")
        }
        guard (1...120).contains(title.count), !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIProblem(.unprocessableContent, code: "invalid_title", detail: "The title must be one line of 1 to 120 characters.")
        }
        guard (1...2000).contains(body.count) else {
            throw APIProblem(.unprocessableContent, code: "invalid_text", detail: "The body must be 1 to 2000 characters.")
        }
        let now = api.now
        var publishAt = now
        if let given = sent.value.publishAt {
            guard let text = given, let instant = RecordedAt(parsing: text)?.claimed else {
                throw APIProblem(.unprocessableContent, code: "invalid_publish_at", detail: "publish_at must be an RFC 3339 instant, e.g. 2027-03-20T09:00:00Z.")
            }
            publishAt = max(instant, now)
        }
        // A retried POST must not announce twice: the key replays the first answer, its Location too.
        return try await OperatorIdempotency(api: api).run(request, operator: principal.subject, body: sent.bytes,
                                                           replayHeaders: Self.location(ofAnswer:)) {
            switch try await api.runtime.database.createAnnouncement(title: title, body: body, audience: audience, publishAt: publishAt,
                                                                      by: principal.subject, now: now) {
            case let .failure(refusal):
                throw APIProblem(.unprocessableContent, code: refusal.code, detail: refusal.message)
            case let .success(record):
                if record.publishAt <= now, try await api.runtime.database.publishDueAnnouncements(now: now) > 0 { api.wakeup.signal() }
                context.logger.info("announcement written", metadata: ["announcement": "\(record.id)", "by": "\(api.runtime.pseudonyms.principal(principal))"])
                let current = try await api.runtime.database.announcement(id: record.id) ?? record
                return try OperatorIdempotency.json(AnnouncementResource(current), status: .accepted,
                                                    headers: [.location: "/v1/announcements/\(record.id)"])
            }
        }
    }

    /// The `Location` of a stored answer: its announcement's.
    @Sendable static func location(ofAnswer body: Data) -> HTTPFields {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let id = object["id"] as? String,
              Identifier(rawValue: id) != nil else { return [:] }
        return [.location: "/v1/announcements/\(id)"]
    }

    /// `DELETE /v1/announcements/{id}` (ops): cancels one not yet published (again: the same
    /// answer); a published one is 409 `already_published`.
    @Sendable func cancel(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let id = try api.identifier("id", in: context)
        switch try await api.runtime.database.cancelAnnouncement(id: id, now: api.now) {
        case let .cancelled(record):
            return try api.json(AnnouncementResource(record))
        case .alreadyPublished:
            throw APIProblem(.conflict, code: "already_published", detail: "This announcement was published already; its students have it.")
        case .notFound:
            throw APIProblem(.notFound, code: "unknown_announcement", detail: "There is no announcement \(id).")
        }
    }
}

/// A `POST /v1/announcements` body: `{title, body, audience, publish_at?}` and nothing else, the
/// texts trimmed. The values' own rules (422 `invalid_audience`, `invalid_title`, …) are the
/// route's, in its order.
struct AnnouncementBody: Decodable {
    var title: String
    var body: String
    /// The audience named: one member, `all` with `true` (not 1), or `level`, `semester` or
    /// `coach` with an id; nil for any other object.
    var audience: AnnouncementAudience?
    /// Absent: nil (now); given but not text (`null` too): `.some(nil)`, refused as a malformed instant.
    var publishAt: String??

    static let shape = "The body must be {\"title\": \"…\", \"body\": \"…\", \"audience\": {\"all\": true}} with an optional \"publish_at\"."

    enum CodingKeys: String, CodingKey {
        case title, body, audience
        case publishAt = "publish_at"
    }

    init(from decoder: any Decoder) throws {
        try decoder.members(within: ["title", "body", "audience", "publish_at"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title).trimmingCharacters(in: .whitespacesAndNewlines)
        body = try container.decode(String.self, forKey: .body).trimmingCharacters(in: .whitespacesAndNewlines)
        // Any object (another is 400); which one it names is decided here, where the store says.
        let members = try container.decode([String: JSONMemberValue].self, forKey: .audience)
        audience = AnnouncementAudience(json: members.mapValues { value -> Any in
            switch value {
            case let .bool(flag): return flag
            case let .text(text): return text
            default: return value
            }
        })
        if container.contains(.publishAt) {
            publishAt = .some(try? container.decode(String.self, forKey: .publishAt))
        } else {
            publishAt = nil
        }
    }
}

/// An announcement as the API shows it.
struct AnnouncementResource: Encodable {
    var id: String
    var title: String
    var body: String
    var audience: [String: String]
    var publishAt: Date
    var state: String
    var recipients: Int?

    init(_ record: AnnouncementRecord) {
        id = record.id
        title = record.title
        body = record.body
        audience = (record.audienceValue?.json ?? [:]).mapValues { value in (value as? String) ?? "true" }
        publishAt = record.publishAt
        state = record.state
        recipients = record.recipients
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(audience.mapValues { $0 == "true" ? AnyAudienceValue.flag : .id($0) }, forKey: .audience)
        try container.encode(publishAt, forKey: .publishAt)
        try container.encode(state, forKey: .state)
        try container.encode(recipients, forKey: .recipients)
    }

    enum CodingKeys: String, CodingKey {
        case id, title, body, audience, state, recipients
        case publishAt
    }

    /// `{"all": true}` or `{"level": "L1"}`: a flag or an id.
    enum AnyAudienceValue: Encodable {
        case flag
        case id(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .flag: try container.encode(true)
            case let .id(id): try container.encode(id)
            }
        }
    }
}
