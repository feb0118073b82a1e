import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The data of `GET /v1/students/{id}/timeline` for the enrolment in `semesterId`
    /// (default: the current one at `now`), or nil for an unknown student or semester.
    public func timeline(studentId: String, semesterId: String? = nil, policy: ProgramPolicy, now: Date) throws -> TimelineData? {
        try engine.read(Self.timelineQuery(studentId: studentId, semesterId: semesterId, policy: policy, now: now))
    }

    /// `timeline` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func timeline(studentId: String, semesterId: String? = nil, policy: ProgramPolicy, now: Date) async throws -> TimelineData? {
        try await engine.read(Self.timelineQuery(studentId: studentId, semesterId: semesterId, policy: policy, now: now))
    }

    /// The transaction of `timeline`, shared by its synchronous and async forms.
    static func timelineQuery(studentId: String, semesterId: String?, policy: ProgramPolicy, now: Date) -> @Sendable (SQLSession) throws -> TimelineData? {
        { db in
            guard let student = try StudentRecord.fetchOne(db, key: studentId) else { return nil }
            let chosen = try semesterId.map { try StudentContext.enrolment(db, studentId: studentId, semesterId: $0) }
                ?? StudentContext.currentEnrolment(db, studentId: studentId, now: now)
            guard let enrolment = chosen else { return nil }
            let context = try StudentContext.load(db, student: student, enrolment: enrolment, policy: policy)
            let submissions = try SubmissionRecord.fetchAll(db, where: "enrolmentId = ?", [context.enrolmentId], orderBy: "receivedAt")
            let feedback = try FeedbackRecord.fetchAll(
                db, where: "submissionId IN (SELECT id FROM submission WHERE enrolmentId = ?)", [context.enrolmentId], orderBy: "receivedAt")
            let coaches = try CoachRecord.fetchAll(db)
            let coachesById = Dictionary(coaches.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let levels = Dictionary(try LevelRecord.fetchAll(db).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let enrolments = try Row.fetchAll(db, sql: """
                SELECT enrolment.* FROM enrolment JOIN semester ON semester.id = enrolment.semesterId
                WHERE enrolment.studentId = ? ORDER BY semester.startDate, enrolment.id
                """, arguments: [studentId]).map { try EnrolmentRecord(row: $0) }
            let summaries = try enrolments.compactMap { item -> TimelineData.EnrolmentSummary? in
                guard let semester = try SemesterRecord.fetchOne(db, key: item.semesterId) else { return nil }
                return .init(enrolment: item, semester: semester, level: item.levelId.flatMap { levels[$0] },
                             coach: item.coachId.flatMap { coachesById[$0] })
            }
            // Unplaced: the newest assessment still waiting, of any semester.
            let pendingAssessment = enrolment.isPlaced ? nil : try SubmissionRecord.fetchOne(
                db, where: "studentId = ? AND kind = ? AND state IN (?, ?)",
                [studentId, SubmissionKind.assessment.rawValue, SubmissionState.processing.rawValue, SubmissionState.awaitingFeedback.rawValue],
                orderBy: "receivedAt DESC")
            let comments = Dictionary(grouping: try CommentRecord.fetchAll(
                db, where: "submissionId IN (SELECT id FROM submission WHERE enrolmentId = ?)", [context.enrolmentId], orderBy: "createdAt, rowid"),
                by: \.feedbackId)
            return TimelineData(
                student: student, enrolment: enrolment, semester: context.semester, level: context.level,
                coach: enrolment.coachId.flatMap { coachesById[$0] }, calendar: context.calendar,
                curriculum: try CurriculumWeekRecord.fetchAll(db, where: "levelId = ?", [enrolment.levelId], orderBy: "week"),
                submissions: submissions, feedback: feedback,
                coachNames: Dictionary(coaches.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first }),
                rules: context.rules, history: context.history, elsewhere: context.elsewhere, enrolments: summaries,
                pendingAssessment: pendingAssessment, policy: policy, comments: comments)
        }
    }

    /// Submissions awaiting feedback from `coachId` at `now`: those of the enrolments they
    /// coach (unless another coach covers them now), those of the coaches they cover now
    /// (DESIGN §11), and for a placing coach every unplaced student's placement assessment;
    /// oldest first. Each names the level and title it was recited for.
    public func coachQueue(coachId: String, now: Date) throws -> [QueueItem] {
        try engine.read(Self.coachQueueQuery(coachId: coachId, now: now))
    }

    /// `coachQueue` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func coachQueue(coachId: String, now: Date) async throws -> [QueueItem] {
        try await engine.read(Self.coachQueueQuery(coachId: coachId, now: now))
    }

    /// The transaction of `coachQueue`, shared by its synchronous and async forms.
    static func coachQueueQuery(coachId: String, now: Date) -> @Sendable (SQLSession) throws -> [QueueItem] {
        { db in
            let placing = try mayPlace(db, coachId: coachId)
            let rows = try Row.fetchAll(db, sql: """
                SELECT submission.*, student.name AS studentName,
                    COALESCE(submission.title, CASE submission.kind WHEN 'week' THEN curriculumWeek.title WHEN 'eoc' THEN level.eocTitle END) AS passageTitle,
                    CASE submission.kind WHEN 'week' THEN curriculumWeek.passage WHEN 'eoc' THEN level.eocPassage END AS passageText
                FROM submission
                JOIN enrolment ON enrolment.id = submission.enrolmentId
                JOIN student ON student.id = submission.studentId
                LEFT JOIN level ON level.id = COALESCE(submission.levelId, enrolment.levelId)
                LEFT JOIN curriculumWeek ON curriculumWeek.levelId = level.id AND curriculumWeek.week = submission.week
                WHERE submission.state = :awaiting AND (
                    (enrolment.coachId = :coach AND NOT EXISTS (SELECT 1 FROM coachCover
                        WHERE coachCover.coachId = :coach AND startsAt <= :now AND until > :now))
                    OR enrolment.coachId IN (SELECT coachCover.coachId FROM coachCover
                        WHERE coveringCoachId = :coach AND startsAt <= :now AND until > :now)
                    OR (:placing = 1 AND submission.kind = 'assessment' AND enrolment.levelId IS NULL))
                ORDER BY submission.receivedAt
                """, arguments: ["awaiting": SubmissionState.awaitingFeedback.rawValue, "coach": coachId, "placing": placing, "now": now])
            return try rows.map {
                QueueItem(submission: try SubmissionRecord(row: $0), studentName: $0["studentName"],
                          title: $0["passageTitle"], passage: $0["passageText"])
            }
        }
    }

    /// A student's notification feed after `cursor` (a `seq`), oldest first.
    public func events(studentId: String, after cursor: Int64, limit: Int) throws -> [EventRecord] {
        try engine.read(Self.eventsQuery(studentId: studentId, after: cursor, limit: limit))
    }

    /// `events` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func events(studentId: String, after cursor: Int64, limit: Int) async throws -> [EventRecord] {
        try await engine.read(Self.eventsQuery(studentId: studentId, after: cursor, limit: limit))
    }

    /// The transaction of `events`, shared by its synchronous and async forms.
    static func eventsQuery(studentId: String, after cursor: Int64, limit: Int) -> @Sendable (SQLSession) throws -> [EventRecord] {
        { db in
            try EventRecord.fetchAll(db, where: "studentId = ? AND recipient = 'student' AND seq > ?", [studentId, cursor],
                                     orderBy: "seq", limit: limit)
        }
    }

    /// Whether a coach may see a student at `now`: one who knows them (`coachKnows`), or a
    /// placing coach while the student awaits placement. Nil for an unknown student.
    public func coachMaySee(studentId: String, coachId: String?, now: Date) async throws -> Bool? {
        try await engine.read { db in try Self.coachMaySee(db, studentId: studentId, coachId: coachId, now: now) }
    }

    static func coachMaySee(_ db: SQLSession, studentId: String, coachId: String?, now: Date) throws -> Bool? {
        // An erased student is no one's to see, ops' included.
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM student WHERE id = ? AND erasedAt IS NULL)",
                                arguments: [studentId]) ?? false else { return nil }
        guard let coachId else { return false }
        if try coachKnows(db, studentId: studentId, coachId: coachId, now: now) { return true }
        let unplaced = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM enrolment WHERE studentId = ? AND levelId IS NULL)
            """, arguments: [studentId]) ?? false
        return unplaced ? try mayPlace(db, coachId: coachId) : false
    }

    /// Whether a coach may read one submission at `now`: one who may answer it, or one who
    /// knows the student (`coachKnows`: their history is the coach's to read).
    public func coachMayRead(submissionId: String, coachId: String, now: Date) async throws -> Bool {
        try await engine.read { db in
            guard let submission = try SubmissionRecord.fetchOne(db, key: submissionId) else { return false }
            if try Self.mayAnswer(db, submission: submission, coachId: coachId, now: now) { return true }
            return try Self.coachKnows(db, studentId: submission.studentId, coachId: coachId, now: now)
        }
    }

    /// Whether `coachId` knows the student (DESIGN §11): coaches one of their enrolments, coached
    /// one before (a change of coach keeps it in `enrolmentChange`), wrote a reply to one of
    /// their recordings, or covers their coach now.
    static func coachKnows(_ db: SQLSession, studentId: String, coachId: String, now: Date) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM enrolment WHERE studentId = :student AND coachId = :coach)
                OR EXISTS (SELECT 1 FROM enrolmentChange JOIN enrolment ON enrolment.id = enrolmentChange.enrolmentId
                           WHERE enrolment.studentId = :student AND enrolmentChange.coachId = :coach)
                OR EXISTS (SELECT 1 FROM feedback JOIN submission ON submission.id = feedback.submissionId
                           WHERE submission.studentId = :student AND feedback.coachId = :coach)
                OR EXISTS (SELECT 1 FROM enrolment JOIN coachCover ON coachCover.coachId = enrolment.coachId
                           WHERE enrolment.studentId = :student AND coachCover.coveringCoachId = :coach
                           AND coachCover.startsAt <= :now AND coachCover.until > :now)
            """, arguments: ["student": studentId, "coach": coachId, "now": now]) ?? false
    }

    /// True when the database answers a trivial query (readiness).
    public func isResponsive() -> Bool {
        (try? engine.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    /// `isResponsive` from async code, suspending instead of blocking.
    public func isResponsive() async -> Bool {
        (try? await engine.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }
}

extension AppDatabase {
    /// Queue depth, awaiting feedback, overdue and undelivered counts, read in one transaction.
    public func operationalGauges(now: Date) throws -> OperationalGauges {
        try engine.read(Self.operationalGaugesQuery(now: now))
    }

    /// `operationalGauges` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func operationalGauges(now: Date) async throws -> OperationalGauges {
        try await engine.read(Self.operationalGaugesQuery(now: now))
    }

    /// The transaction of `operationalGauges`, shared by its synchronous and async forms.
    static func operationalGaugesQuery(now: Date) -> @Sendable (SQLSession) throws -> OperationalGauges {
        { db in
            OperationalGauges(
                queueDepth: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE state IN ('queued', 'running')") ?? 0,
                awaitingFeedback: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE state = 'awaiting_feedback'") ?? 0,
                overdue: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE state = 'awaiting_feedback' AND feedbackDueAt < ?",
                                          arguments: [now]) ?? 0,
                undeliveredEvents: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE deliveredAt IS NULL") ?? 0)
        }
    }
}
