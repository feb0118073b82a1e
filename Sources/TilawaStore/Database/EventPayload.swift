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

    public var id: String
    public var type: String
    public var studentId: String
    public var occurredAt: Date
    public var week: WeekInfo
    public var submissionId: String?
    public var feedbackId: String?
    public var coachName: String?
    public var message: String
    public var link: String

    enum CodingKeys: String, CodingKey {
        case id, type, week, message, link
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
