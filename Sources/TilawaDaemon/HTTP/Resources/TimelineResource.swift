import Foundation
import TilawaCore
import TilawaStore

/// `GET /v1/students/{id}/timeline`: the semester as one student sees it.
public struct TimelineResource: Encodable, Sendable {
    struct Semester: Encodable, Sendable {
        var id: String
        var name: String
        var startsAt: Date
        var closesAt: Date
        var timeZone: String
    }

    struct SubmissionSummary: Encodable, Sendable {
        var id: String
        var state: SubmissionState
        var receivedAt: Date
        var late: Bool
        var links: [String: String]
    }

    struct FeedbackSummary: Encodable, Sendable {
        var id: String
        var submissionId: String
        var coachName: String?
        var receivedAt: Date
        var notes: String?
        var links: [String: String]
    }

    struct Week: Encodable, Sendable {
        var number: Int
        var title: String
        var passage: String
        var unlocksAt: Date
        var dueAt: Date
        var state: String
        var submissions: [SubmissionSummary]
        var feedback: [FeedbackSummary]

        enum CodingKeys: String, CodingKey {
            case number, title, passage, state, submissions, feedback
            case unlocksAt
            case dueAt
        }
    }

    var studentId: String
    var semester: Semester
    var currentWeek: Int?
    var phase: SemesterPhase
    var attempts: AttemptStatus
    var behindCount: Int
    var catchUpMessage: String
    var eocEligible: Bool
    var weeks: [Week]
    var other: [SubmissionSummary]

    enum CodingKeys: String, CodingKey {
        case semester, phase, attempts, weeks, other
        case studentId
        case currentWeek
        case behindCount
        case catchUpMessage
        case eocEligible
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(studentId, forKey: .studentId)
        try container.encode(semester, forKey: .semester)
        try container.encode(currentWeek, forKey: .currentWeek)
        try container.encode(phase, forKey: .phase)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(behindCount, forKey: .behindCount)
        try container.encode(catchUpMessage, forKey: .catchUpMessage)
        try container.encode(eocEligible, forKey: .eocEligible)
        try container.encode(weeks, forKey: .weeks)
        try container.encode(other, forKey: .other)
    }

    /// Builds the timeline at `now`.
    public init(_ data: TimelineData, now: Date) {
        let calendar = data.calendar
        studentId = data.student.id
        semester = Semester(id: data.semester.id, name: data.semester.name, startsAt: calendar.unlock(week: 1),
                            closesAt: calendar.closesAt, timeZone: calendar.timeZone.identifier)
        currentWeek = calendar.currentWeek(at: now)
        phase = calendar.phase(at: now)
        attempts = data.rules.attemptStatus(history: data.history, now: now)
        behindCount = data.rules.behindCount(history: data.history, now: now)
        catchUpMessage = data.rules.catchUpMessage(history: data.history, now: now)
        eocEligible = data.rules.eocEligible(history: data.history)

        let feedbackBySubmission = Dictionary(grouping: data.feedback, by: \.submissionId)
        func summary(_ record: SubmissionRecord) -> SubmissionSummary {
            SubmissionSummary(id: record.id, state: record.state, receivedAt: record.receivedAt, late: record.late, links: [
                "self": "/v1/submissions/\(record.id)", "audio": "/v1/submissions/\(record.id)/audio",
                "waveform": "/v1/submissions/\(record.id)/waveform",
            ])
        }
        func feedbackSummaries(for records: [SubmissionRecord]) -> [FeedbackSummary] {
            records.flatMap { feedbackBySubmission[$0.id] ?? [] }.filter { $0.state == .ready }.map { item in
                FeedbackSummary(id: item.id, submissionId: item.submissionId, coachName: data.coachNames[item.coachId],
                                receivedAt: item.receivedAt, notes: item.notes, links: [
                                    "audio": "/v1/feedback/\(item.id)/audio", "waveform": "/v1/feedback/\(item.id)/waveform",
                                ])
            }
        }
        let titles = Dictionary(data.curriculum.map { ($0.week, $0) }, uniquingKeysWith: { first, _ in first })
        weeks = (1...calendar.weekCount).map { number in
            let records = data.submissions.filter { $0.kind == .week && $0.week == number }
            let latest = records.last { $0.state != .failed }
            let state: String
            if !calendar.isUnlocked(week: number, at: now) {
                state = "locked"
            } else if let latest {
                state = switch latest.state {
                case .feedbackReady: "feedback_ready"
                case .processing: "submitted"
                default: "awaiting_feedback"
                }
            } else if now <= calendar.deadline(week: number) {
                state = "open"
            } else {
                // Past its deadline: still to catch up on until the semester closes.
                state = calendar.isClosed(at: now) ? "missed" : "late"
            }
            return Week(number: number, title: titles[number]?.title ?? "Week \(number)", passage: titles[number]?.passage ?? "",
                        unlocksAt: calendar.unlock(week: number), dueAt: calendar.deadline(week: number), state: state,
                        submissions: records.map(summary), feedback: feedbackSummaries(for: records))
        }
        other = data.submissions.filter { $0.kind != .week }.map(summary)
    }
}
