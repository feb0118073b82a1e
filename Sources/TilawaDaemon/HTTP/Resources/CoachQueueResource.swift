import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore
import TilawaStore

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
            case ageSeconds
            case dueAt
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
        /// The week's title or the end-of-course title; null for a placement assessment.
        var title: String?
        /// The passage recited; null for a placement assessment.
        var passage: String?
        /// The recording's length.
        var durationSeconds: Double

        enum CodingKeys: String, CodingKey {
            case id, state, late, links, week, kind, title, passage
            case receivedAt
            case studentId
            case studentName
            case durationSeconds
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
            try container.encode(title, forKey: .title)
            try container.encode(passage, forKey: .passage)
            try container.encode(durationSeconds, forKey: .durationSeconds)
        }
    }

    /// A student's question waiting for an answer.
    struct Question: Encodable {
        var comment: CommentResource
        var overdue: Bool
        var studentName: String
        var week: Int?
        var kind: SubmissionKind

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(comment, forKey: .comment)
            try container.encode(overdue, forKey: .overdue)
            try container.encode(studentName, forKey: .studentName)
            try container.encode(week, forKey: .week)
            try container.encode(kind, forKey: .kind)
        }

        enum CodingKeys: String, CodingKey {
            case comment, overdue, week, kind
            case studentName
        }
    }

    var coachId: String
    var items: [Item]
    /// Students' questions about replies, oldest first (answer with `POST /v1/feedback/{id}/comments`).
    var questions: [Question]

    init(coachId: String, items: [QueueItem], questions: [OpenQuestion] = [], now: Date) {
        self.coachId = coachId
        self.questions = questions.map {
            Question(comment: CommentResource($0.comment), overdue: ($0.comment.dueAt.map { now > $0 }) ?? false,
                     studentName: $0.studentName, week: $0.week, kind: $0.kind)
        }
        self.items = items.map { item in
            let record = item.submission
            let dueAt = record.feedbackDueAt
            let base = "/v1/submissions/\(record.id)"
            var links = ["self": base, "audio": base + "/audio", "waveform": base + "/waveform", "feedback": base + "/feedback"]
            if let id = Identifier(rawValue: record.id) { links["app"] = DeepLink.submission(record.slot, id: id).absoluteString }
            let submission = Submission(id: record.id, state: record.state, receivedAt: record.receivedAt, late: record.late, links: links,
                                        studentId: record.studentId, studentName: item.studentName, week: record.week, kind: record.kind,
                                        title: item.title, passage: item.passage, durationSeconds: record.analysis.durationSeconds)
            return Item(submission: submission, ageSeconds: max(0, Int(now.timeIntervalSince(record.receivedAt))), dueAt: dueAt,
                        overdue: now > dueAt)
        }
    }
}
