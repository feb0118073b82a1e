import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// `moveFeedback`: a reply filed under the wrong recording (a coach's drop-folder file
    /// named for the wrong student) moves to `submissionId` (DESIGN §11). Its questions stay
    /// with the student who asked them, on their recording: questions belong to the asker, and
    /// moving them would show one student's words and voice to another (and to that student's
    /// coach), and keep them past the asker's erasure. Their open questions are closed (the
    /// `feedback_moved` notice tells them the reply was moved); the thread under the reply,
    /// from then on, is the new student's alone.
    /// The recording it leaves waits for a reply again unless it has another; the one it joins
    /// is answered once the reply is ready. The student it leaves is told it was moved, the
    /// one it joins gets `feedback_ready`. A reply that carries an end-of-course result is not
    /// moved (it decided a pass or a retake), and none is moved onto an end-of-course
    /// recording (its reply must carry a result).
    static func moveFeedback(_ db: SQLSession, feedbackId: String, to submissionId: String, now: Date) throws -> Result<AuditDraft, BackOfficeRefusal> {
        guard var feedback = try FeedbackRecord.fetchOne(db, key: feedbackId) else { return .failure(.unknownFeedback(feedbackId)) }
        guard var target = try SubmissionRecord.fetchOne(db, key: submissionId) else { return .failure(.unknownSubmission(submissionId)) }
        if feedback.result != nil { return .failure(.feedbackHasResult(feedbackId)) }
        if feedback.submissionId == target.id { return .failure(.sameSubmission) }
        if target.kind == .eoc {
            return .failure(.notAnswerable(submissionId, reason: "it is an end-of-course assessment, whose reply must carry a result"))
        }
        guard target.state.countsAsAccepted else {
            return .failure(.notAnswerable(submissionId, reason: "it is \(target.state.rawValue.replacingOccurrences(of: "_", with: " "))"))
        }
        guard var source = try SubmissionRecord.fetchOne(db, key: feedback.submissionId) else {
            throw StoreError.internalInconsistency("feedback \(feedbackId) lost its submission")
        }
        feedback.submissionId = target.id
        feedback.listenedAt = nil
        try feedback.update(db)
        try db.execute(sql: "UPDATE comment SET answeredAt = ? WHERE feedbackId = ? AND author = 'student' AND answeredAt IS NULL",
                       arguments: [now, feedbackId])
        let othersLeft = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback WHERE submissionId = ? AND state IN ('ready', 'processing')",
                                          arguments: [source.id]) ?? 0
        if othersLeft == 0, source.state == .feedbackReady {
            source.state = .awaitingFeedback
            try source.update(db)
        }
        if feedback.state == .ready, target.state.countsAsAccepted, target.state != .feedbackReady {
            target.state = .feedbackReady
            try target.update(db)
        }
        let sourceEnrolment = try EnrolmentRecord.fetchOne(db, key: source.enrolmentId)
        let targetEnrolment = try EnrolmentRecord.fetchOne(db, key: target.enrolmentId)
        let sourceCoach = try sourceEnrolment?.coachId.flatMap { try CoachRecord.fetchOne(db, key: $0) }
        let author = try CoachRecord.fetchOne(db, key: feedback.coachId)
        let sourceWeek = try StudentContext.weekInfo(db, levelId: source.levelId ?? sourceEnrolment?.levelId, slot: source.slot)
        try recordEvent(
            db, type: .feedbackMoved, studentId: source.studentId, levelId: sourceEnrolment?.levelId, slot: source.slot, occurredAt: now,
            submissionId: source.id, feedbackId: nil, coachName: sourceCoach?.name,
            message: StudentMessages.feedbackMoved(week: source.week, title: source.title ?? sourceWeek.title, coachName: sourceCoach?.name))
        if feedback.state == .ready {
            let targetWeek = try StudentContext.weekInfo(db, levelId: target.levelId ?? targetEnrolment?.levelId, slot: target.slot)
            try recordEvent(
                db, type: .feedbackReady, studentId: target.studentId, levelId: targetEnrolment?.levelId, slot: target.slot,
                occurredAt: now, submissionId: target.id, feedbackId: feedback.id, coachName: author?.name,
                message: StudentMessages.feedbackReady(week: target.week, title: target.title ?? targetWeek.title, coachName: author?.name))
        }
        return .success(AuditDraft(
            action: "feedback_moved", studentId: target.studentId, otherStudentId: source.studentId, coachId: feedback.coachId,
            before: ["feedback_id": .text(feedback.id), "submission_id": .text(source.id), "student_id": .text(source.studentId)],
            after: ["feedback_id": .text(feedback.id), "submission_id": .text(target.id), "student_id": .text(target.studentId)]))
    }
}
