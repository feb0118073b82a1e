import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// Records `eoc_available` for every enrolment whose end-of-course assessment is open at
    /// `now` and not yet announced: the window has opened for an eligible student. Once per
    /// enrolment (`eocAvailableNotifiedAt`, set in the same transaction as the event).
    @discardableResult
    public func recordEOCAvailable(policy: ProgramPolicy, now: Date) async throws -> Int {
        try await immediateWrite { db in
            // Cheap filters first, so the minute's sweep costs nearly nothing outside the
            // weeks an assessment is open: the (semester, level) windows open now, then the
            // enrolments there with enough distinct weeks; only those load their history.
            var open: [(semester: String, level: String)] = []
            for row in try Row.fetchAll(db, sql: """
                SELECT DISTINCT enrolment.semesterId, enrolment.levelId, level.eocOpensWeek FROM enrolment
                JOIN level ON level.id = enrolment.levelId
                WHERE enrolment.eocAvailableNotifiedAt IS NULL AND enrolment.coachId IS NOT NULL
                """) {
                guard let semester = try SemesterRecord.fetchOne(db, key: row["semesterId"] as String) else { continue }
                let calendar = try semester.calendar()
                let opens = calendar.unlock(week: min(max(row["eocOpensWeek"] as Int, 1), calendar.weekCount))
                if now >= opens, !calendar.isClosed(at: now) { open.append((row["semesterId"], row["levelId"])) }
            }
            var sent = 0
            for window in open {
                let candidates = try Row.fetchAll(db, sql: """
                    SELECT enrolment.id, enrolment.studentId FROM enrolment
                    LEFT JOIN submission ON submission.enrolmentId = enrolment.id AND submission.kind = 'week'
                      AND submission.state NOT IN \(SubmissionState.notCountedSQL)
                    WHERE enrolment.semesterId = ? AND enrolment.levelId = ? AND enrolment.eocAvailableNotifiedAt IS NULL
                      AND enrolment.coachId IS NOT NULL
                    GROUP BY enrolment.id HAVING COUNT(DISTINCT submission.week) >= ?
                    """, arguments: [window.semester, window.level, policy.eocRequiredWeeks])
                for row in candidates where try Self.recordEOCAvailableIfDue(
                    db, studentId: row["studentId"], enrolmentId: row["id"], policy: policy, now: now) {
                    sent += 1
                }
            }
            return sent
        }
    }

    /// Records `eoc_available` for one enrolment if its assessment is `available` at `now`
    /// and was never announced (inside the caller's transaction). True when it did.
    @discardableResult
    static func recordEOCAvailableIfDue(_ db: SQLSession, studentId: String, enrolmentId: Int64, policy: ProgramPolicy, now: Date) throws -> Bool {
        guard let enrolment = try EnrolmentRecord.fetchOne(db, key: enrolmentId), enrolment.eocAvailableNotifiedAt == nil,
              let student = try StudentRecord.fetchOne(db, key: studentId) else { return false }
        let context = try StudentContext.load(db, student: student, enrolment: enrolment, policy: policy)
        guard context.rules.eocStatus(history: context.history, now: now).state == .available else { return false }
        var announced = enrolment
        announced.eocAvailableNotifiedAt = now
        try announced.update(db)
        let levelName = context.level?.name ?? "your level"
        let coach = try enrolment.coachId.flatMap { try CoachRecord.fetchOne(db, key: $0) }
        try recordEvent(
            db, type: .eocAvailable, studentId: studentId, levelId: enrolment.levelId, slot: .eoc, occurredAt: now,
            submissionId: nil, feedbackId: nil, coachName: coach?.name,
            message: StudentMessages.eocAvailable(levelName: levelName, closes: context.calendar.closesAt, zone: context.zone),
            extra: .init(level: context.level.map { .init(id: $0.id, name: $0.name) }, semesterId: enrolment.semesterId))
        return true
    }
}
