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

    /// Members only some event types carry (placement, enrolment, EOC results, the coach's
    /// digest, `storage_low`).
    public struct Extra: Codable, Sendable, Equatable {
        public var level: NamedRef?
        public var coach: NamedRef?
        public var result: EOCResult?
        public var semesterId: String?
        public var queue: QueueDigest?
        public var storage: StorageFacts?
        /// `announcement`: what the programme announced.
        public var announcement: Announcement?
        /// `desk_link_requested`: the login link asked for (its `url` removed once delivered).
        public var deskLink: DeskLink?

        public init(level: NamedRef? = nil, coach: NamedRef? = nil, result: EOCResult? = nil, semesterId: String? = nil,
                    queue: QueueDigest? = nil, storage: StorageFacts? = nil, announcement: Announcement? = nil, deskLink: DeskLink? = nil) {
            self.announcement = announcement
            self.deskLink = deskLink
            self.level = level
            self.coach = coach
            self.result = result
            self.semesterId = semesterId
            self.queue = queue
            self.storage = storage
        }

        enum CodingKeys: String, CodingKey {
            case level, coach, result, queue, storage, announcement
            case semesterId = "semester_id"
            case deskLink = "desk_link"
        }
    }

    /// A coach's new login link to the desk, as `desk_link_requested` carries it to the
    /// organisation: one use, until `expiresAt`. The stored event keeps it only until it is
    /// delivered (a live credential is not kept in the outbox, its backups or exports).
    public struct DeskLink: Codable, Sendable, Equatable {
        public var coachId: String
        /// The link; nil once the event is delivered.
        public var url: String?
        public var expiresAt: Date
        /// The coach's address on the roster, where the organisation may send it; nil when none.
        public var email: String?

        public init(coachId: String, url: String?, expiresAt: Date, email: String?) {
            self.coachId = coachId
            self.url = url
            self.expiresAt = expiresAt
            self.email = email
        }

        enum CodingKeys: String, CodingKey {
            case url, email
            case coachId = "coach_id"
            case expiresAt = "expires_at"
        }
    }

    /// An announcement as its event carries it.
    public struct Announcement: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        public var body: String

        public init(id: String, title: String, body: String) {
            self.id = id
            self.title = title
            self.body = body
        }
    }

    /// A coach's queue as `coach_digest` reports it.
    public struct QueueDigest: Codable, Sendable, Equatable {
        /// Recordings awaiting the coach's reply.
        public var awaiting: Int
        /// Of those, past their `feedback_due_at`.
        public var overdue: Int
        /// Students' questions not answered yet.
        public var openQuestions: Int
        /// The earliest `feedback_due_at` among the recordings awaiting a reply.
        public var oldestDueAt: Date?

        public init(awaiting: Int, overdue: Int, openQuestions: Int, oldestDueAt: Date?) {
            self.awaiting = awaiting
            self.overdue = overdue
            self.openQuestions = openQuestions
            self.oldestDueAt = oldestDueAt
        }

        enum CodingKeys: String, CodingKey {
            case awaiting, overdue
            case openQuestions = "open_questions"
            case oldestDueAt = "oldest_due_at"
        }

        /// Encodes every member, an empty queue's `oldest_due_at` as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(awaiting, forKey: .awaiting)
            try container.encode(overdue, forKey: .overdue)
            try container.encode(openQuestions, forKey: .openQuestions)
            try container.encode(oldestDueAt, forKey: .oldestDueAt)
        }
    }

    /// The state directory's filesystem as `storage_low` reports it.
    public struct StorageFacts: Codable, Sendable, Equatable {
        public var freeBytes: Int64
        public var totalBytes: Int64
        /// Uploads are refused (507 `storage_full`) below this (`storage.min_free_bytes`).
        public var minimumFreeBytes: Int64

        public init(freeBytes: Int64, totalBytes: Int64, minimumFreeBytes: Int64) {
            self.freeBytes = freeBytes
            self.totalBytes = totalBytes
            self.minimumFreeBytes = minimumFreeBytes
        }

        enum CodingKeys: String, CodingKey {
            case freeBytes = "free_bytes"
            case totalBytes = "total_bytes"
            case minimumFreeBytes = "min_free_bytes"
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
    /// Who the event is for: `student`, `coach` or `ops`. Absent from events stored before
    /// it existed (all were students').
    public var recipient: String?
    /// The coach's id for a coach's event; nil otherwise.
    public var recipientId: String?
    /// The student it is about; null for a coach's digest and `storage_low`.
    public var studentId: String?
    public var occurredAt: Date
    /// The week it is about; null for events about no week (the digest, `storage_low`).
    public var week: WeekInfo?
    public var submissionId: String?
    public var feedbackId: String?
    public var coachName: String?
    public var message: String
    public var link: String
    /// Placement, enrolment and EOC results only; omitted otherwise.
    public var extra: Extra?
    /// Whether the app should push it to the device (DESIGN §14): false for what the student
    /// did themselves; decided when the event is written. Absent from events stored before it
    /// existed.
    public var push: Bool? = nil
    /// The sentence's key and parts (DESIGN §14): `message` is `EnglishMessages.render` of
    /// them, and an app may render them in the student's language. Absent from events stored
    /// before they existed.
    public var messageKey: String? = nil
    public var params: [String: MessageValue]? = nil

    enum CodingKeys: String, CodingKey {
        case id, type, recipient, week, message, link, extra, push, params
        case messageKey = "message_key"
        case recipientId = "recipient_id"
        case studentId = "student_id"
        case occurredAt = "occurred_at"
        case submissionId = "submission_id"
        case feedbackId = "feedback_id"
        case coachName = "coach_name"
    }

    /// Encodes `student_id` and `week` always (null when absent: the schema requires them),
    /// the other optional members only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(recipient, forKey: .recipient)
        try container.encodeIfPresent(recipientId, forKey: .recipientId)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(occurredAt, forKey: .occurredAt)
        try container.encode(week, forKey: .week)
        try container.encodeIfPresent(submissionId, forKey: .submissionId)
        try container.encodeIfPresent(feedbackId, forKey: .feedbackId)
        try container.encodeIfPresent(coachName, forKey: .coachName)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(messageKey, forKey: .messageKey)
        try container.encodeIfPresent(params, forKey: .params)
        try container.encode(link, forKey: .link)
        try container.encodeIfPresent(extra, forKey: .extra)
        try container.encodeIfPresent(push, forKey: .push)
    }

    /// A stored payload read back (the form `jsonData` writes).
    public static func decode(_ data: Data) throws -> EventPayload {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(EventPayload.self, from: data)
    }

    /// Compact JSON with RFC 3339 UTC instants.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }
}
