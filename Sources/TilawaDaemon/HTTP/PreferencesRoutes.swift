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
    /// "push"?: {"feedback"?: bool, "deadlines"?: bool, "announcements"?: bool, "questions"?: bool}}`.
    /// Members left out keep their value; `time_zone: null` goes back to the roster's or the
    /// programme's zone. A zone set here is never overwritten by a roster import. A change
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
        let body = try await request.body.collect(upTo: 16_384)
        let change = try Self.change(from: Data(body.readableBytesView))
        guard let preferences = try await api.runtime.database.updatePreferences(studentId: studentId, change: change, by: principal.role == .ops ? "ops" : "student", now: api.now) else {
            throw APIProblem.unknownStudent
        }
        context.logger.info("preferences changed", metadata: ["student": "\(studentId)", "by": "\(principal)"])
        return try api.json(PreferencesResource(studentId: studentId, preferences))
    }

    /// The change a body asks for; 400 `invalid_body` for a body that is not one, 422
    /// `invalid_time_zone` for a zone that is not an IANA name.
    static func change(from data: Data) throws -> PreferencesChange {
        let categories = PushCategory.allCases.map(\.rawValue)
        let shape = "The body must be {\"time_zone\": \"Asia/Dubai\" or null, \"push\": {…}} where push may name \(categories.joined(separator: ", ")) with true or false."
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              Set(object.keys).isSubset(of: ["time_zone", "push"]) else {
            throw APIProblem.badRequest("invalid_body", shape)
        }
        var change = PreferencesChange()
        if let zone = object["time_zone"] {
            if zone is NSNull {
                change.timeZone = .some(nil)
            } else {
                guard let name = zone as? String else { throw APIProblem.badRequest("invalid_body", shape) }
                guard IANAZone.zone(name) != nil else {
                    throw APIProblem(.unprocessableContent, code: "invalid_time_zone",
                                     detail: "time_zone must be an IANA zone name such as Asia/Dubai or America/New_York.")
                }
                change.timeZone = .some(name)
            }
        }
        if object["push"] != nil {
            // JSONDecoder reads a Bool only from true or false (JSONSerialization would take 0 and 1).
            struct Push: Decodable { let push: [String: Bool] }
            guard let push = try? JSONDecoder().decode(Push.self, from: data).push else { throw APIProblem.badRequest("invalid_body", shape) }
            for (name, on) in push {
                guard let category = PushCategory(rawValue: name) else { throw APIProblem.badRequest("invalid_body", shape) }
                change.push[category] = on
            }
        }
        return change
    }
}

/// `{"student_id", "time_zone", "time_zone_source", "push": {category: bool}}`.
struct PreferencesResource: Encodable {
    let studentId: String
    let timeZone: String
    let timeZoneSource: String
    let push: [String: Bool]

    init(studentId: String, _ preferences: StudentPreferences) {
        self.studentId = studentId
        timeZone = preferences.timeZone
        timeZoneSource = preferences.timeZoneSource
        push = Dictionary(uniqueKeysWithValues: preferences.push.map { ($0.key.rawValue, $0.value) })
    }
}
