import Foundation
import GRDB
import TilawaCore

/// Replies past their due instant (`feedback_overdue` to the coach and operations, once),
/// and a reply as its listener sees it.
extension AppDatabase {
    /// Records `feedback_overdue` once for every submission still awaiting feedback past its
    /// `feedbackDueAt` (weekly hours, EOC business days, placement hours).
    @discardableResult
    public func recordOverdueFeedback(now: Date, policy: ProgramPolicy) throws -> Int {
        try immediateWrite(Self.recordOverdueFeedbackQuery(now: now, policy: policy))
    }

    /// `recordOverdueFeedback` from async code: suspends on GRDB's async immediateWrite instead of blocking a thread of the cooperative pool.
    public func recordOverdueFeedback(now: Date, policy: ProgramPolicy) async throws -> Int {
        try await immediateWrite(Self.recordOverdueFeedbackQuery(now: now, policy: policy))
    }

    /// The transaction of `recordOverdueFeedback`, shared by its synchronous and async forms.
    static func recordOverdueFeedbackQuery(now: Date, policy: ProgramPolicy) -> @Sendable (SQLSession) throws -> Int {
        { db in
            let overdue = try SubmissionRecord.fetchAll(
                db, where: "state = ? AND overdueNotifiedAt IS NULL AND feedbackDueAt < ?", [SubmissionState.awaitingFeedback.rawValue, now])
            for var submission in overdue {
                guard let enrolment = try EnrolmentRecord.fetchOne(db, key: submission.enrolmentId) else { continue }
                let coach = try enrolment.coachId.flatMap { try CoachRecord.fetchOne(db, key: $0) }
                let week = try StudentContext.weekInfo(db, levelId: enrolment.levelId, slot: submission.slot)
                let student = try StudentRecord.fetchOne(db, key: submission.studentId)?.name ?? submission.studentId
                let zone = try SemesterRecord.fetchOne(db, key: submission.semesterId).flatMap { try? $0.calendar().timeZone } ?? .gmt
                let message = StaffMessages.feedbackOverdue(
                    student: student, week: submission.week, title: week.title, coachName: coach?.name, due: submission.feedbackDueAt, zone: zone)
                // The coach (their own) and operations are told; the student is not told that
                // operations were.
                let recipients: [EventRecipient] = (coach.map { [.coach($0.id)] } ?? []) + [.ops]
                for recipient in recipients {
                    try Self.recordEvent(
                        db, type: .feedbackOverdue, studentId: submission.studentId, levelId: enrolment.levelId,
                        slot: submission.slot, occurredAt: now, submissionId: submission.id, feedbackId: nil, coachName: coach?.name,
                        message: message, recipient: recipient)
                }
                submission.overdueNotifiedAt = now
                try submission.update(db)
            }
            return overdue.count
        }
    }
}

extension AppDatabase {
    /// True when a coach with `id` exists.
    public func coachExists(id: String) throws -> Bool {
        try engine.read(Self.coachExistsQuery(id: id))
    }

    /// `coachExists` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func coachExists(id: String) async throws -> Bool {
        try await engine.read(Self.coachExistsQuery(id: id))
    }

    /// The transaction of `coachExists`, shared by its synchronous and async forms.
    static func coachExistsQuery(id: String) -> @Sendable (SQLSession) throws -> Bool {
        { db in try CoachRecord.exists(db, key: id) }
    }
}

extension AppDatabase {
    /// The student id matching `id` exactly, or else ignoring case when exactly one does.
    public func resolveStudentId(_ id: String) throws -> String? {
        try engine.read { db in
            if try StudentRecord.exists(db, key: id) { return id }
            // ASCII case only, on both engines (SQLite's upper() and PostgreSQL's under "C").
            let matches = try String.fetchAll(db, sql: "SELECT id FROM student WHERE UPPER(id) = UPPER(?) LIMIT 2", arguments: [id])
            return matches.count == 1 ? matches[0] : nil
        }
    }
}

extension AppDatabase {
    /// The reply `id` with its submission and coach name, in one read; nil for an unknown id.
    public func feedbackView(id: String) throws -> FeedbackView? {
        try engine.read(Self.feedbackViewQuery(id: id))
    }

    /// `feedbackView` from async code: suspends on GRDB's async read instead of blocking a thread of the cooperative pool.
    public func feedbackView(id: String) async throws -> FeedbackView? {
        try await engine.read(Self.feedbackViewQuery(id: id))
    }

    /// The transaction of `feedbackView`, shared by its synchronous and async forms.
    static func feedbackViewQuery(id: String) -> @Sendable (SQLSession) throws -> FeedbackView? {
        { db in
            guard let feedback = try FeedbackRecord.fetchOne(db, key: id),
                  let submission = try SubmissionRecord.fetchOne(db, key: feedback.submissionId) else { return nil }
            let name = try CoachRecord.fetchOne(db, key: feedback.coachId)?.name ?? feedback.coachId
            return FeedbackView(feedback: feedback, submission: submission, coachName: name)
        }
    }
}
