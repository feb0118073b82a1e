import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

/// A student's own settings (DESIGN §14): the time zone reminders, quiet hours and every time
/// in a message to them use, and which categories of notification push.
struct PreferencesRoutes: Sendable {
    let api: APIContext

    func register(on group: RouterGroup<TilawaRequestContext>) {
        group.get("students/:id/preferences", use: show)
        group.put("students/:id/preferences", use: update)
    }

    /// `GET /v1/students/{id}/preferences` (the student, ops).
    @Sendable func show(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        try await api.access.requireStudent(studentId, for: principal, roles: [.student, .ops])
        guard let preferences = try await api.runtime.database.preferences(studentId: studentId, now: api.now) else {
            throw APIProblem.unknownStudent
        }
        return try api.json(PreferencesResource(studentId: studentId, preferences))
    }

    /// `PUT /v1/students/{id}/preferences` (the student, ops): `{"time_zone"?: IANA | null,
    /// "push"?: {"feedback"?: bool, "deadlines"?: bool, "announcements"?: bool, "questions"?: bool},
    /// "quiet_hours"?: "HH:MM-HH:MM" | "none" | null, "reminder_time"?: "HH:MM" | null}`.
    /// Members left out keep their value; `null` goes back to the roster's or the
    /// programme's zone, quiet hours or reminder time. A zone set here is never overwritten by a roster import. A change
    /// applies to what is written from now on: events already stored keep their `push`.
    @Sendable func update(_ request: Request, context: TilawaRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let studentId = try api.identifier("id", in: context)
        do {
            try await api.access.requireStudent(studentId, for: principal, roles: [.student, .ops])
        } catch {
            context.refuseBody(of: request)
            throw error
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") ?? false else {
            throw APIProblem(.unsupportedMediaType, code: "unsupported_media_type",
                             detail: "Send the preferences as application/json: {\"time_zone\": \"Asia/Dubai\", \"push\": {\"deadlines\": false}}.")
        }
        let change = try await request.decodeJSON(as: PreferencesBody.self, context: context, limit: 16_384, shape: PreferencesBody.shape).change
        guard let preferences = try await api.runtime.database.updatePreferences(studentId: studentId, change: change, by: principal.role == .ops ? "ops" : "student", now: api.now) else {
            throw APIProblem.unknownStudent
        }
        let names = api.runtime.pseudonyms
        context.logger.info("preferences changed", metadata: ["student": "\(names.student(studentId))", "by": "\(names.principal(principal))"])
        return try api.json(PreferencesResource(studentId: studentId, preferences))
    }
}

/// A `PUT …/preferences` body, as the change it asks for: any of `time_zone`, `push`,
/// `quiet_hours`, `reminder_time`, nothing else (400 `invalid_body`). A zone that is not an
/// IANA name is 422 `invalid_time_zone`; quiet hours or a reminder time that are not one (of
/// any type) 422 `invalid_quiet_hours`, `invalid_reminder_time`; a push flag is `true` or
/// `false` (not 0 or 1) of a category there is.
struct PreferencesBody: Decodable {
    var change: PreferencesChange

    static var shape: String {
        let categories = PushCategory.allCases.map(\.rawValue)
        return "The body must be {\"time_zone\": \"Asia/Dubai\" or null, \"push\": {…}, \"quiet_hours\": \"22:00-07:00\", \"none\" or null, \"reminder_time\": \"18:00\" or null} where push may name \(categories.joined(separator: ", ")) with true or false."
    }

    enum CodingKeys: String, CodingKey {
        case push
        case timeZone = "time_zone"
        case quietHours = "quiet_hours"
        case reminderTime = "reminder_time"
    }

    init(from decoder: any Decoder) throws {
        try decoder.members(within: ["time_zone", "push", "quiet_hours", "reminder_time"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var change = PreferencesChange()
        if container.contains(.timeZone) {
            if try container.decodeNil(forKey: .timeZone) {
                change.timeZone = .some(nil)
            } else {
                let name = try container.decode(String.self, forKey: .timeZone)
                guard IANAZone.zone(name) != nil else {
                    throw APIProblem(.unprocessableContent, code: "invalid_time_zone",
                                     detail: "time_zone must be an IANA zone name such as Asia/Dubai or America/New_York.")
                }
                change.timeZone = .some(name)
            }
        }
        change.quietHours = try Self.nullableText(container, .quietHours, valid: { $0 == "none" || NotificationSchedule.QuietHours(parsing: $0) != nil },
                                                  refusal: APIProblem(.unprocessableContent, code: "invalid_quiet_hours",
                                                                      detail: "quiet_hours must be HH:MM-HH:MM in your own time zone (e.g. 22:00-07:00), none, or null for the programme's."))
        change.reminderTime = try Self.nullableText(container, .reminderTime, valid: { LocalTime($0) != nil },
                                                    refusal: APIProblem(.unprocessableContent, code: "invalid_reminder_time",
                                                                        detail: "reminder_time must be a time HH:MM in your own time zone (e.g. 18:00), or null for the programme's."))
        if container.contains(.push) {
            // JSONDecoder reads a Bool only from true or false (0 and 1 are 400).
            for (name, on) in try container.decode([String: Bool].self, forKey: .push) {
                guard let category = PushCategory(rawValue: name) else { throw DecodingError.notTheShape("no push category \(name)", in: decoder) }
                change.push[category] = on
            }
        }
        self.change = change
    }

    /// A member that may be null: nil when absent, `.some(nil)` for null, the text when `valid`
    /// accepts it; anything else (another type too) is `refusal`.
    private static func nullableText(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, valid: (String) -> Bool,
                                     refusal: APIProblem) throws -> String?? {
        guard container.contains(key) else { return nil }
        if try container.decodeNil(forKey: key) { return .some(nil) }
        guard let text = try? container.decode(String.self, forKey: key), valid(text) else { throw refusal }
        return .some(text)
    }
}

/// `{"student_id", "time_zone", "time_zone_source", "push": {category: bool}}`.
struct PreferencesResource: Encodable {
    let studentId: String
    let timeZone: String
    let timeZoneSource: String
    let push: [String: Bool]
    /// The student's own quiet hours (`HH:MM-HH:MM` or `none`); null: the programme's.
    let quietHours: String?
    /// The student's own reminder time; null: the programme's.
    let reminderTime: String?

    init(studentId: String, _ preferences: StudentPreferences) {
        self.studentId = studentId
        timeZone = preferences.timeZone
        timeZoneSource = preferences.timeZoneSource
        push = Dictionary(uniqueKeysWithValues: preferences.push.map { ($0.key.rawValue, $0.value) })
        quietHours = preferences.quietHours
        reminderTime = preferences.reminderTime
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(timeZoneSource, forKey: .timeZoneSource)
        try container.encode(push, forKey: .push)
        try container.encode(quietHours, forKey: .quietHours)
        try container.encode(reminderTime, forKey: .reminderTime)
    }

    enum CodingKeys: String, CodingKey {
        case push
        case studentId = "student_id"
        case timeZone = "time_zone"
        case timeZoneSource = "time_zone_source"
        case quietHours = "quiet_hours"
        case reminderTime = "reminder_time"
    }
}
