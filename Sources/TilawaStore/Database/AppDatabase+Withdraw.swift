import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The migration "submissions: withdraw and recorded-at": when a student took a
    /// recording back, and when an offline recording says it was made. Never edited once landed.
    static func migrateWithdrawals(_ db: Database) throws {
        try db.alter(table: "submission") { t in
            t.add(column: "withdrawnAt", .datetime)
            t.add(column: "recordedAt", .datetime)
        }
    }

    /// Why a recording cannot be withdrawn.
    public enum WithdrawRefusal: Error, Sendable, Equatable {
        /// No such recording of this student (answered as not found).
        case notFound
        /// The window after sending has passed.
        case windowPassed(receivedAt: Date, minutes: Int)
        /// The coach has replied (or a reply is being processed).
        case answered
        /// It no longer awaits review: a newer recording replaced it, or it failed.
        case notWithdrawable(SubmissionState)

        public var code: String {
            switch self {
            case .notFound: "not_found"
            case .windowPassed: "withdraw_window_passed"
            case .answered: "feedback_given"
            case .notWithdrawable: "not_withdrawable"
            }
        }

        /// One sentence the student can act on.
        public func message(in timeZone: TimeZone) -> String {
            switch self {
            case .notFound:
                "There is no such recording of yours."
            case .windowPassed(_, 0):
                "Recordings cannot be withdrawn in this programme; ask your coach if one was sent by mistake."
            case let .windowPassed(receivedAt, minutes):
                "A recording can be withdrawn within \(minutes) minutes of sending it; this one was sent "
                    + "\(HumanDate.format(receivedAt, in: timeZone)) and is with your coach now."
            case .answered:
                "Your coach has already replied to this recording, so it cannot be withdrawn."
            case .notWithdrawable(.superseded):
                "A newer recording of this week replaced this one; withdraw the newer one instead."
            case let .notWithdrawable(state):
                "This recording cannot be withdrawn (it is \(state.rawValue.replacingOccurrences(of: "_", with: " ")))."
            }
        }
    }

    /// What a withdrawal did: the recording as it is now, and the files to remove once committed.
    public struct Withdrawal: Sendable {
        public var submission: SubmissionRecord
        public var filesToRemove: [String]
        public var timeZone: TimeZone
    }

    /// Withdraws `studentId`'s recording `id` within `windowMinutes` of its acceptance and
    /// before any reply, in one transaction: the submission is `withdrawn` (its attempt is
    /// back: withdrawn recordings never count), its encode job cancelled if it has not run,
    /// its files no longer pointed to (returned for the caller to remove after the commit: a
    /// crash in between leaves orphans the sweep removes), the recording it superseded
    /// awaits review again, the student is told, and so is the coach when it was in their
    /// queue. Withdrawing a withdrawn recording again changes nothing.
    public func withdrawSubmission(id: String, studentId: String, windowMinutes: Int, now: Date) async throws
        -> Result<Withdrawal, WithdrawRefusal> {
        try await immediateWrite { db in
            guard var submission = try SubmissionRecord.fetchOne(db, key: id), submission.studentId == studentId,
                  let enrolment = try EnrolmentRecord.fetchOne(db, key: submission.enrolmentId) else { return .failure(.notFound) }
            let zone = try SemesterRecord.fetchOne(db, key: submission.semesterId).flatMap { try? $0.calendar().timeZone } ?? .gmt
            if submission.state == .withdrawn { return .success(Withdrawal(submission: submission, filesToRemove: [], timeZone: zone)) }
            let answered = try FeedbackRecord.fetchCount(db, where: "submissionId = ?", [id]) > 0
            if answered || submission.state == .feedbackReady { return .failure(.answered) }
            guard submission.state.isSupersedable else { return .failure(.notWithdrawable(submission.state)) }
            guard windowMinutes > 0, now.timeIntervalSince(submission.receivedAt) <= Double(windowMinutes) * 60 else {
                return .failure(.windowPassed(receivedAt: submission.receivedAt, minutes: windowMinutes))
            }
            let wasQueued = submission.state == .awaitingFeedback
            // A coach may have marked it already: the marks go with the recording they point into.
            let annotations = try AnnotationRecord.fetchAll(db, where: "submissionId = ?", [id])
            for annotation in annotations { try annotation.delete(db) }
            let files = [submission.originalPath, submission.audioPath, submission.waveformPath].compactMap { $0 }
                + ArtifactStore.variants(ofAudio: submission.audioPath ?? "") + annotations.flatMap(\.files)
            submission.state = .withdrawn
            submission.withdrawnAt = now
            submission.originalPath = nil
            submission.audioPath = nil
            submission.waveformPath = nil
            try submission.update(db)
            // A job a worker holds finishes on its own and finds the recording withdrawn.
            try db.execute(sql: """
                UPDATE job SET state = 'cancelled', lockedBy = NULL WHERE kind = ? AND subjectId = ? AND state = 'queued'
                """, arguments: [JobRecord.Kind.encodeSubmission.rawValue, id])
            try Self.restoreSuperseded(db, by: id)

            let week = try StudentContext.weekInfo(db, levelId: enrolment.levelId, slot: submission.slot)
            try Self.recordEvent(
                db, type: .submissionWithdrawn, studentId: studentId, levelId: enrolment.levelId, slot: submission.slot,
                occurredAt: now, submissionId: id, feedbackId: nil, coachName: nil,
                message: StudentMessages.submissionWithdrawn(week: submission.week, title: week.title))
            if wasQueued, let coachId = enrolment.coachId {
                let student = try StudentRecord.fetchOne(db, key: studentId)?.name ?? studentId
                try Self.recordEvent(
                    db, type: .submissionWithdrawn, studentId: studentId, levelId: enrolment.levelId, slot: submission.slot,
                    occurredAt: now, submissionId: id, feedbackId: nil, coachName: nil,
                    message: StaffMessages.submissionWithdrawn(student: student, week: submission.week, title: week.title), recipient: .coach(coachId))
            }
            return .success(Withdrawal(submission: submission, filesToRemove: files, timeZone: zone))
        }
    }

    /// The recording `id` had superseded and nobody has answered since (the newest such one)
    /// awaits review again: `id` failed or was withdrawn.
    static func restoreSuperseded(_ db: SQLSession, by id: String) throws {
        let restored = try SubmissionRecord.fetchOne(
            db, where: "supersededBy = ? AND state = ?", [id, SubmissionState.superseded.rawValue], orderBy: "receivedAt DESC")
        if var restored {
            restored.state = restored.encodedAt == nil ? .processing : .awaitingFeedback
            restored.supersededBy = nil
            try restored.update(db)
        }
    }
}
