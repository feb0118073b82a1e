import Foundation
import TilawaCore

/// The JSON body of a notification: what happened, which week (number and title), when,
/// and where in the app (DESIGN §1: "Every notification says what happened, which week …").
public struct EventPayload: Codable, Sendable, Equatable {
    /// The week or slot a notification is about.
    public struct WeekInfo: Codable, Sendable, Equatable {
        /// 1…15, or nil for `eoc` and `assessment`.
        public var number: Int?
        /// `week`, `eoc` or `assessment`.
        public var kind: String
        public var title: String
        public var passage: String?

        enum CodingKeys: String, CodingKey {
            case number, kind, title, passage
        }

        /// Encodes every member, an absent number or passage as `null` (`number` is required).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(number, forKey: .number)
            try container.encode(kind, forKey: .kind)
            try container.encode(title, forKey: .title)
            try container.encode(passage, forKey: .passage)
        }
    }

    /// Members only some event types carry (placement, enrolment, EOC results).
    public struct Extra: Codable, Sendable, Equatable {
        public var level: NamedRef?
        public var coach: NamedRef?
        public var result: EOCResult?
        public var semesterId: String?

        public init(level: NamedRef? = nil, coach: NamedRef? = nil, result: EOCResult? = nil, semesterId: String? = nil) {
            self.level = level
            self.coach = coach
            self.result = result
            self.semesterId = semesterId
        }

        enum CodingKeys: String, CodingKey {
            case level, coach, result
            case semesterId = "semester_id"
        }
    }

    /// An id with the name people read ("L3", "Intermediate").
    public struct NamedRef: Codable, Sendable, Equatable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var id: String
    public var type: String
    /// Who the event is for: `student` (every event today; `coach` and `ops` are reserved).
    /// Absent from events stored before it existed.
    public var recipient: String?
    /// The coach's id for a coach's event; nil otherwise.
    public var recipientId: String?
    public var studentId: String
    public var occurredAt: Date
    public var week: WeekInfo
    public var submissionId: String?
    public var feedbackId: String?
    public var coachName: String?
    public var message: String
    public var link: String
    /// Placement, enrolment and EOC results only; omitted otherwise.
    public var extra: Extra?

    enum CodingKeys: String, CodingKey {
        case id, type, recipient, week, message, link, extra
        case recipientId = "recipient_id"
        case studentId = "student_id"
        case occurredAt = "occurred_at"
        case submissionId = "submission_id"
        case feedbackId = "feedback_id"
        case coachName = "coach_name"
    }

    /// Compact JSON with RFC 3339 UTC instants.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }
}
