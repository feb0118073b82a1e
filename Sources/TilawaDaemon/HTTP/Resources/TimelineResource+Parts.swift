import Foundation
import TilawaCore
import TilawaStore

/// The timeline's recordings, replies, weeks and end-of-course block.
extension TimelineResource {
    struct SubmissionSummary: Encodable, Sendable {
        var id: String
        var kind: SubmissionKind
        var state: SubmissionState
        var receivedAt: Date
        var late: Bool
        /// The level and title it was recited for (they stay when the enrolment's level changes).
        var levelId: String?
        var title: String?
        var feedbackDueAt: Date
        var result: EOCResult?
        var links: [String: String]
        /// The coach's marks on the recording, in recording order.
        var annotations: [AnnotationResource]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(annotations, forKey: .annotations)
            try container.encode(id, forKey: .id)
            try container.encode(kind, forKey: .kind)
            try container.encode(state, forKey: .state)
            try container.encode(receivedAt, forKey: .receivedAt)
            try container.encode(late, forKey: .late)
            try container.encode(levelId, forKey: .levelId)
            try container.encode(title, forKey: .title)
            try container.encode(feedbackDueAt, forKey: .feedbackDueAt)
            try container.encode(result, forKey: .result)
            try container.encode(links, forKey: .links)
        }

        enum CodingKeys: String, CodingKey {
            case id, kind, state, late, result, links, annotations, title
            case levelId
            case receivedAt
            case feedbackDueAt
        }
    }

    struct FeedbackSummary: Encodable, Sendable {
        var id: String
        var submissionId: String
        var coachName: String?
        var receivedAt: Date
        var notes: String?
        var result: EOCResult?
        /// When the student listened (95 % fetched, or the app said so); null until then.
        var listenedAt: Date?
        /// The thread under the reply, oldest first.
        var comments: [CommentResource]
        var links: [String: String]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(submissionId, forKey: .submissionId)
            try container.encode(coachName, forKey: .coachName)
            try container.encode(receivedAt, forKey: .receivedAt)
            try container.encode(notes, forKey: .notes)
            try container.encode(result, forKey: .result)
            try container.encode(listenedAt, forKey: .listenedAt)
            try container.encode(comments, forKey: .comments)
            try container.encode(links, forKey: .links)
        }

        enum CodingKeys: String, CodingKey {
            case id, notes, result, links, comments
            case submissionId
            case coachName
            case receivedAt
            case listenedAt
        }
    }

    struct Week: Encodable, Sendable {
        var number: Int
        var title: String
        var passage: String
        /// The passage ayah by ayah; empty when the programme file names no ayahs.
        var ayahs: [AyahResource]
        var unlocksAt: Date
        var dueAt: Date
        var state: String
        /// Newest first.
        var submissions: [SubmissionSummary]
        var feedback: [FeedbackSummary]
    }

    /// The level's end-of-course assessment.
    struct EOC: Encodable, Sendable {
        struct Passage: Encodable, Sendable {
            var title: String?
            var reference: String?
            var arabic: String?
            var covers: String?
        }

        var state: EOCStatus.State
        var have: Int
        var need: Int
        var opensAt: Date
        var closesAt: Date
        var resultsExpectedBy: Date?
        var result: EOCResult?
        var message: String
        var passage: Passage
        /// The EOC passage ayah by ayah; empty when the programme file names no ayahs.
        var ayahs: [AyahResource]
        /// Newest first.
        var submissions: [SubmissionSummary]
        var feedback: [FeedbackSummary]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(state, forKey: .state)
            try container.encode(have, forKey: .have)
            try container.encode(need, forKey: .need)
            try container.encode(opensAt, forKey: .opensAt)
            try container.encode(closesAt, forKey: .closesAt)
            try container.encode(resultsExpectedBy, forKey: .resultsExpectedBy)
            try container.encode(result, forKey: .result)
            try container.encode(message, forKey: .message)
            try container.encode(passage, forKey: .passage)
            try container.encode(ayahs, forKey: .ayahs)
            try container.encode(submissions, forKey: .submissions)
            try container.encode(feedback, forKey: .feedback)
        }

        enum CodingKeys: String, CodingKey {
            case state, have, need, result, message, passage, ayahs, submissions, feedback
            case opensAt
            case closesAt
            case resultsExpectedBy
        }
    }
}
