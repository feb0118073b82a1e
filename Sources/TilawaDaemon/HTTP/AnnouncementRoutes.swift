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
        group.post("announcements", use: create)
        group.delete("announcements/:id", use: cancel)
    }

    /// `POST /v1/announcements` (ops): `{title, body, audience, publish_at?}` → 202 with the
    /// announcement; published at once when `publish_at` is absent or past. Takes an
    /// `Idempotency-Key` (`OperatorIdempotency`).
    @Sendable func create(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard principal.role == .ops else {
            context.refuseBody(of: request)
            throw APIProblem.forbidden("Only operations write announcements.")
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "Send the announcement as application/json: {\"title\", \"body\", \"audience\", \"publish_at\"?}.")
        }
        let data = Data(try await request.body.collect(upTo: 16_384).readableBytesView)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              Set(object.keys).isSubset(of: ["title", "body", "audience", "publish_at"]),
              let title = (object["title"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let body = (object["body"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let audienceObject = object["audience"] as? [String: Any] else {
            throw APIProblem.badRequest("invalid_body", "The body must be {\"title\": \"…\", \"body\": \"…\", \"audience\": {\"all\": true}} with an optional \"publish_at\".")
        }
        guard let audience = AnnouncementAudience(json: audienceObject) else {
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
        if let text = object["publish_at"] {
            guard let text = text as? String, let instant = RecordedAt(parsing: text)?.claimed else {
                throw APIProblem(.unprocessableContent, code: "invalid_publish_at", detail: "publish_at must be an RFC 3339 instant, e.g. 2027-03-20T09:00:00Z.")
            }
            publishAt = max(instant, now)
        }
        // A retried POST must not announce twice: the key replays the first answer, its Location too.
        return try await OperatorIdempotency(api: api).run(request, operator: principal.subject, body: data,
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
        let principal = try context.requirePrincipal()
        guard principal.role == .ops else { throw APIProblem.forbidden("Only operations cancel announcements.") }
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
