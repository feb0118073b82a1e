import Foundation
import TilawaCore
import TilawaStore

/// `GET /v1/students/{id}/timeline`: one enrolment (a semester at a level with a coach) as
/// the student sees it, with the header the app draws (level, coach, EOC progress), the
/// student's other semesters (learning history) and, before placement, where that stands.
public struct TimelineResource: Encodable, Sendable {
    struct Semester: Encodable, Sendable {
        var id: String
        var name: String
        var startsAt: Date
        var closesAt: Date
        var timeZone: String
    }

    /// An id with the name people read.
    struct Named: Encodable, Sendable {
        var id: String
        var name: String
    }

    /// The enrolment's coach as the student meets them: name and, when the programme gives
    /// them, a short introduction (`bio`) and a photo (`photo_url`); null otherwise.
    struct Coach: Encodable, Sendable {
        var id: String
        var name: String
        var bio: String?
        var photoURL: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(bio, forKey: .bio)
            try container.encode(photoURL, forKey: .photoURL)
        }

        enum CodingKeys: String, CodingKey {
            case id, name, bio
            case photoURL = "photo_url"
        }
    }

    /// One of the student's semesters (the learning history).
    struct EnrolmentSummary: Encodable, Sendable {
        var semesterId: String
        var semesterName: String
        var level: Named?
        var coach: Named?
        var outcome: String?
        var selected: Bool
        /// `active`, `paused` or `left` (DESIGN §11).
        var state: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(state, forKey: .state)
            try container.encode(semesterId, forKey: .semesterId)
            try container.encode(semesterName, forKey: .semesterName)
            try container.encode(level, forKey: .level)
            try container.encode(coach, forKey: .coach)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(selected, forKey: .selected)
        }

        enum CodingKeys: String, CodingKey {
            case level, coach, outcome, selected, state
            case semesterId
            case semesterName
        }
    }

    /// `placed`, or `awaiting_placement` with when a level is expected.
    struct Placement: Encodable, Sendable {
        var state: String
        var placementExpectedBy: Date?
        var message: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(state, forKey: .state)
            try container.encode(placementExpectedBy, forKey: .placementExpectedBy)
            try container.encode(message, forKey: .message)
        }

        enum CodingKeys: String, CodingKey {
            case state, message
            case placementExpectedBy
        }
    }

    var studentId: String
    var semester: Semester
    var semesters: [EnrolmentSummary]
    var level: Named?
    var coach: Coach?
    var placement: Placement
    var graduated: Bool
    var currentWeek: Int?
    var phase: SemesterPhase
    var attempts: AttemptStatus
    var behindCount: Int
    var catchUpMessage: String
    var eocEligible: Bool
    var eoc: EOC
    var weeks: [Week]
    var other: [SubmissionSummary]

    enum CodingKeys: String, CodingKey {
        case semester, semesters, level, coach, placement, graduated, phase, attempts, eoc, weeks, other
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
        try container.encode(semesters, forKey: .semesters)
        try container.encode(level, forKey: .level)
        try container.encode(coach, forKey: .coach)
        try container.encode(placement, forKey: .placement)
        try container.encode(graduated, forKey: .graduated)
        try container.encode(currentWeek, forKey: .currentWeek)
        try container.encode(phase, forKey: .phase)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(behindCount, forKey: .behindCount)
        try container.encode(catchUpMessage, forKey: .catchUpMessage)
        try container.encode(eocEligible, forKey: .eocEligible)
        try container.encode(eoc, forKey: .eoc)
        try container.encode(weeks, forKey: .weeks)
        try container.encode(other, forKey: .other)
    }

    /// Builds the timeline at `now`.
    public init(_ data: TimelineData, now: Date) {
        let calendar = data.calendar
        let zone = calendar.timeZone
        // Every instant in a sentence is the student's own zone's; `semester.time_zone` stays
        // the programme's, the zone the rules count in.
        let studentZone = data.student.zone(or: zone)
        let placed = data.enrolment.isPlaced
        studentId = data.student.id
        semester = Semester(id: data.semester.id, name: data.semester.name, startsAt: calendar.unlock(week: 1),
                            closesAt: calendar.closesAt, timeZone: zone.identifier)
        semesters = data.enrolments.map { item in
            EnrolmentSummary(semesterId: item.semester.id, semesterName: item.semester.name,
                             level: item.level.map { Named(id: $0.id, name: $0.name) },
                             coach: item.coach.map { Named(id: $0.id, name: $0.name) },
                             outcome: item.enrolment.outcome?.rawValue, selected: item.enrolment.id == data.enrolment.id,
                             state: item.enrolment.state.rawValue)
        }
        level = data.level.map { Named(id: $0.id, name: $0.name) }
        coach = data.coach.map { Coach(id: $0.id, name: $0.name, bio: $0.bio, photoURL: $0.photoPath == nil ? nil : "/v1/coaches/\($0.id)/photo") }
        if placed {
            placement = Placement(state: "placed", placementExpectedBy: nil, message: nil)
        } else if let pending = data.pendingAssessment {
            placement = Placement(state: "awaiting_placement", placementExpectedBy: pending.feedbackDueAt,
                                  message: StudentMessages.awaitingPlacement(placementDueHours: data.rules.placementDueHours))
        } else {
            placement = Placement(state: "awaiting_placement", placementExpectedBy: nil, message: StudentMessages.recordPlacement)
        }
        graduated = data.enrolment.outcome == .graduated
        currentWeek = placed ? calendar.currentWeek(at: now) : nil
        phase = data.rules.phase(at: now)
        attempts = data.rules.attemptStatus(history: data.history, now: now, elsewhere: data.elsewhere)
        behindCount = data.rules.behindCount(history: data.history, now: now)
        catchUpMessage = placed
            ? data.rules.catchUpMessage(history: data.history, now: now, elsewhere: data.elsewhere, in: studentZone)
            : (data.pendingAssessment == nil ? StudentMessages.recordPlacement : StudentMessages.awaitingPlacement(placementDueHours: data.rules.placementDueHours))

        let feedbackBySubmission = Dictionary(grouping: data.feedback, by: \.submissionId)
        func summary(_ record: SubmissionRecord) -> SubmissionSummary {
            SubmissionSummary(id: record.id, kind: record.kind, state: record.state, receivedAt: record.receivedAt, late: record.late,
                              levelId: record.levelId, title: record.title,
                              feedbackDueAt: record.feedbackDueAt, result: record.result, links: [
                                  "self": "/v1/submissions/\(record.id)", "audio": "/v1/submissions/\(record.id)/audio",
                                  "waveform": "/v1/submissions/\(record.id)/waveform",
                              ], annotations: (data.annotations[record.id] ?? []).map(AnnotationResource.init))
        }
        func feedbackSummaries(for records: [SubmissionRecord]) -> [FeedbackSummary] {
            let replies: [FeedbackRecord] = records.flatMap { feedbackBySubmission[$0.id] ?? [] }
            let ready = replies.filter { $0.state == .ready }.sorted { $0.receivedAt > $1.receivedAt }
            return ready.map { (item: FeedbackRecord) -> FeedbackSummary in
                let links: [String: String] = ["audio": "/v1/feedback/\(item.id)/audio", "waveform": "/v1/feedback/\(item.id)/waveform"]
                return FeedbackSummary(id: item.id, submissionId: item.submissionId, coachName: data.coachNames[item.coachId],
                                       receivedAt: item.receivedAt, notes: item.notes, result: item.result,
                                       listenedAt: item.listenedAt, comments: (data.comments[item.id] ?? []).map(CommentResource.init),
                                       links: links)
            }
        }
        // Newest first, as the app lists them (and openapi.yaml documents).
        let newestFirst: [SubmissionRecord] = data.submissions.reversed()

        let status = data.rules.eocStatus(history: data.history, now: now)
        eocEligible = status.state == .available || status.state == .retake
        let eocRecords = newestFirst.filter { $0.kind == .eoc }
        let underReview = status.state == .underReview ? eocRecords.first { $0.state.countsAsAccepted && $0.state != .superseded } : nil
        let level = data.level
        eoc = EOC(
            state: status.state, have: status.have, need: status.need, opensAt: status.opensAt, closesAt: status.closesAt,
            resultsExpectedBy: underReview?.feedbackDueAt, result: eocRecords.first { $0.result != nil }?.result,
            message: status.message(now: now, in: studentZone, levelName: level?.name, resultsExpectedBy: underReview?.feedbackDueAt,
                                    businessDays: data.policy.eocFeedbackDueBusinessDays),
            passage: .init(title: level?.eocTitle, reference: level?.eocPassage, arabic: level?.eocArabic, covers: level?.eocCovers),
            ayahs: AyahResource.list(level?.eocAyahs),
            submissions: eocRecords.map(summary), feedback: feedbackSummaries(for: eocRecords))

        let titles = Dictionary(data.curriculum.map { ($0.week, $0) }, uniquingKeysWith: { first, _ in first })
        weeks = placed ? (1...calendar.weekCount).map { number in
            let records: [SubmissionRecord] = newestFirst.filter { $0.kind == .week && $0.week == number }
            let latest = records.first { $0.state.countsAsAccepted }
            let state: String
            if !calendar.isUnlocked(week: number, at: now) {
                state = "locked"
            } else if let latest {
                // Complete (the week's badge) once the reply to the newest recording was listened to.
                let listened = (feedbackBySubmission[latest.id] ?? []).contains { $0.state == .ready && $0.listenedAt != nil }
                state = switch latest.state {
                case .feedbackReady: listened ? "complete" : "feedback_ready"
                case .processing: "submitted"
                default: "awaiting_feedback"
                }
            } else if data.rules.overrides.excusedWeeks.contains(number) {
                // Its deadline fell while the enrolment was paused: not owed, and said so.
                state = "paused"
            } else if now <= data.rules.deadline(week: number) {
                state = "open"
            } else if !data.rules.owes(week: number) {
                // Before the enrolment owed it (a late placement): may be recorded, never late.
                state = "not_owed"
            } else {
                // Past its deadline: still to catch up on until the semester closes.
                state = now >= data.rules.closesAt(for: .week(number)) ? "missed" : "late"
            }
            let curriculum = titles[number]
            return Week(number: number, title: curriculum?.title ?? "Week \(number)", passage: curriculum?.passage ?? "",
                        ayahs: AyahResource.list(curriculum?.ayahs),
                        unlocksAt: calendar.unlock(week: number), dueAt: data.rules.deadline(week: number), state: state,
                        submissions: records.map(summary), feedback: feedbackSummaries(for: records))
        } : []
        other = newestFirst.filter { $0.kind == .assessment }.map(summary)
    }
}
