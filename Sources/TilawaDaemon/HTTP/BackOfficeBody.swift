import Foundation
import HTTPTypes
import TilawaCore
import TilawaStore

/// What one back-office route's body may hold, and the shape a refusal tells.
protocol BackOfficeForm {
    /// The members the body may have; any other is 400 `invalid_body`.
    static var members: Set<String> { get }
    /// `{"reason": "…"}`: said in the 415 and the 400.
    static var shape: String { get }
}

/// `POST /v1/students/{id}/erasure`.
enum ErasureForm: BackOfficeForm {
    static let members: Set<String> = ["reason", "force"]
    static let shape = "{\"reason\": \"…\", \"force\"?: true}"
}

/// `POST /v1/students/{id}/extensions`.
enum ExtensionForm: BackOfficeForm {
    static let members: Set<String> = ["week", "due_at", "reason"]
    static let shape = "{\"week\": 3 or \"eoc\", \"due_at\": \"2027-03-24T23:59:00-04:00\", \"reason\": \"…\"}"
}

/// `POST /v1/students/{id}/attempt-grants`.
enum AttemptGrantForm: BackOfficeForm {
    static let members: Set<String> = ["count", "expires_at", "reason"]
    static let shape = "{\"count\": 1, \"expires_at\": \"2027-03-31T00:00:00Z\", \"reason\": \"…\"}"
}

/// `PUT /v1/students/{id}/enrolment`.
enum EnrolmentForm: BackOfficeForm {
    static let members: Set<String> = ["coach_id", "level_id", "state", "reason"]
    static let shape = "{\"coach_id\"?: \"C02\", \"level_id\"?: \"L2\", \"state\"?: \"active\" | \"paused\" | \"left\", \"reason\": \"…\"}"
}

/// `POST /v1/feedback/{id}/move`.
enum FeedbackMoveForm: BackOfficeForm {
    static let members: Set<String> = ["submission_id", "reason"]
    static let shape = "{\"submission_id\": \"sub_…\", \"reason\": \"…\"}"
}

/// `POST /v1/coaches/{id}/cover`.
enum CoverForm: BackOfficeForm {
    static let members: Set<String> = ["covering_coach_id", "until", "reason"]
    static let shape = "{\"covering_coach_id\": \"C02\", \"until\": \"2027-04-01T00:00:00Z\", \"reason\": \"…\"}"
}

/// An operator's `POST …/sessions/revoke` (`SessionRoutes`).
enum RevocationForm: BackOfficeForm {
    static let members: Set<String> = ["reason"]
    static let shape = "{\"reason\": \"…\"}"
}

/// A back-office request's body, decoded by `Request.decodeJSON`: an object of `Form`'s members
/// only (400 `invalid_body` otherwise), each value of any JSON type until the route reads it.
struct BackOfficeRequestBody<Form: BackOfficeForm>: Decodable {
    let members: BackOfficeBody

    init(_ members: BackOfficeBody) {
        self.members = members
    }

    init(from decoder: any Decoder) throws {
        try decoder.members(within: Form.members)
        members = BackOfficeBody(object: try decoder.singleValueContainer().decode([String: JSONMemberValue].self))
    }
}

/// A back-office request's members, each read with a 400 or 422 that names it.
struct BackOfficeBody {
    let object: [String: JSONMemberValue]

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
