import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The data of `GET /v1/students/{id}/timeline`, or nil for an unknown student.
    public func timeline(studentId: String, policy: ProgramPolicy) throws -> TimelineData? {
        try writer.read(Self.timelineQuery(studentId: studentId, policy: policy))
    }

    /// `timeline` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func timeline(studentId: String, policy: ProgramPolicy) async throws -> TimelineData? {
        try await writer.read(Self.timelineQuery(studentId: studentId, policy: policy))
    }

    /// The transaction of `timeline`, shared by its synchronous and async forms.
    static func timelineQuery(studentId: String, policy: ProgramPolicy) -> @Sendable (Database) throws -> TimelineData? {
        { db in
            guard let student = try StudentRecord.fetchOne(db, key: studentId),
                  let semester = try SemesterRecord.fetchOne(db, key: student.semesterId) else { return nil }
            let context = try StudentContext.load(db, student: student, policy: policy)
            let submissions = try SubmissionRecord.filter(Column("studentId") == studentId).order(Column("receivedAt")).fetchAll(db)
            let feedback = try FeedbackRecord
                .filter(sql: "submissionId IN (SELECT id FROM submission WHERE studentId = ?)", arguments: [studentId])
                .order(Column("receivedAt")).fetchAll(db)
            let coaches = try CoachRecord.fetchAll(db)
            return TimelineData(
                student: student, semester: semester, calendar: context.calendar,
                curriculum: try CurriculumWeekRecord.filter(Column("levelId") == student.levelId).order(Column("week")).fetchAll(db),
                submissions: submissions, feedback: feedback,
                coachNames: Dictionary(coaches.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first }),
                rules: context.rules, history: context.history)
        }
    }

    /// Submissions awaiting feedback from `coachId`'s students, oldest first.
    public func coachQueue(coachId: String) throws -> [QueueItem] {
        try writer.read(Self.coachQueueQuery(coachId: coachId))
    }

    /// `coachQueue` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func coachQueue(coachId: String) async throws -> [QueueItem] {
        try await writer.read(Self.coachQueueQuery(coachId: coachId))
    }

    /// The transaction of `coachQueue`, shared by its synchronous and async forms.
    static func coachQueueQuery(coachId: String) -> @Sendable (Database) throws -> [QueueItem] {
        { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT submission.*, student.name AS studentName FROM submission
                JOIN student ON student.id = submission.studentId
                WHERE student.coachId = ? AND submission.state = ?
                ORDER BY submission.receivedAt
                """, arguments: [coachId, SubmissionState.awaitingFeedback.rawValue])
            return try rows.map { QueueItem(submission: try SubmissionRecord(row: $0), studentName: $0["studentName"]) }
        }
    }

    /// A student's notification feed after `cursor` (a `seq`), oldest first.
    public func events(studentId: String, after cursor: Int64, limit: Int) throws -> [EventRecord] {
        try writer.read(Self.eventsQuery(studentId: studentId, after: cursor, limit: limit))
    }

    /// `events` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func events(studentId: String, after cursor: Int64, limit: Int) async throws -> [EventRecord] {
        try await writer.read(Self.eventsQuery(studentId: studentId, after: cursor, limit: limit))
    }

    /// The transaction of `events`, shared by its synchronous and async forms.
    static func eventsQuery(studentId: String, after cursor: Int64, limit: Int) -> @Sendable (Database) throws -> [EventRecord] {
        { db in
            try EventRecord.filter(Column("studentId") == studentId && Column("seq") > cursor)
                .order(Column("seq")).limit(limit).fetchAll(db)
        }
    }

    /// The coach of a student, if the student exists.
    public func coachId(ofStudent studentId: String) throws -> String? {
        try writer.read(Self.coachIdQuery(ofStudent: studentId))
    }

    /// `coachId` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func coachId(ofStudent studentId: String) async throws -> String? {
        try await writer.read(Self.coachIdQuery(ofStudent: studentId))
    }

    /// The transaction of `coachId`, shared by its synchronous and async forms.
    static func coachIdQuery(ofStudent studentId: String) -> @Sendable (Database) throws -> String? {
        { db in try String.fetchOne(db, sql: "SELECT coachId FROM student WHERE id = ?", arguments: [studentId]) }
    }

    /// True when the database answers a trivial query (readiness).
    public func isResponsive() -> Bool {
        (try? writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    /// `isResponsive` from async code, suspending instead of blocking.
    public func isResponsive() async -> Bool {
        (try? await writer.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }
}

extension AppDatabase {
    /// Queue depth, awaiting feedback, overdue and undelivered counts, read in one transaction.
    public func operationalGauges(now: Date, feedbackDue: TimeInterval) throws -> OperationalGauges {
        try writer.read(Self.operationalGaugesQuery(now: now, feedbackDue: feedbackDue))
    }

    /// `operationalGauges` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func operationalGauges(now: Date, feedbackDue: TimeInterval) async throws -> OperationalGauges {
        try await writer.read(Self.operationalGaugesQuery(now: now, feedbackDue: feedbackDue))
    }

    /// The transaction of `operationalGauges`, shared by its synchronous and async forms.
    static func operationalGaugesQuery(now: Date, feedbackDue: TimeInterval) -> @Sendable (Database) throws -> OperationalGauges {
        { db in
            OperationalGauges(
                queueDepth: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM job WHERE state IN ('queued', 'running')") ?? 0,
                awaitingFeedback: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE state = 'awaiting_feedback'") ?? 0,
                overdue: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE state = 'awaiting_feedback' AND receivedAt < ?",
                                          arguments: [now.addingTimeInterval(-feedbackDue)]) ?? 0,
                undeliveredEvents: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE deliveredAt IS NULL") ?? 0)
        }
    }
}
