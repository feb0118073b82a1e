import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The migration "notifications: recipients": events are for a student, a coach or
    /// operations, and are delivered in order per recipient (`queue`). Existing events are
    /// their student's. Never edited once landed.
    static func migrateEventRecipients(_ db: Database) throws {
        try db.alter(table: "event") { t in
            t.add(column: "recipient", .text).notNull().defaults(to: "student")
            t.add(column: "recipientId", .text)
            t.add(column: "queue", .text).notNull().defaults(to: "")
        }
        try db.execute(sql: "UPDATE event SET queue = 'student:' || studentId")
        try db.create(index: "event_queue_seq", on: "event", columns: ["queue", "seq"])
        try db.create(index: "event_recipient_seq", on: "event", columns: ["recipient", "recipientId", "seq"])
    }

    /// A coach's notification feed after `cursor`, oldest first.
    public func coachEvents(coachId: String, after cursor: Int64, limit: Int) async throws -> [EventRecord] {
        try await engine.read { db in
            try EventRecord.fetchAll(db, where: "recipient = 'coach' AND recipientId = ? AND seq > ?", [coachId, cursor],
                                     orderBy: "seq", limit: limit)
        }
    }

    /// A coach's notification feed before `cursor`, newest first.
    public func coachEvents(coachId: String, before cursor: Int64, limit: Int) async throws -> [EventRecord] {
        try await engine.read { db in
            try EventRecord.fetchAll(db, where: "recipient = 'coach' AND recipientId = ? AND seq < ?", [coachId, cursor],
                                     orderBy: "seq DESC", limit: limit)
        }
    }

    /// Records `student_falling_behind` for the coach of every placed enrolment whose student
    /// missed the last two deadlines in a row (nothing accepted for either week; for a new
    /// student that is "nothing in by the end of week 2"), once per streak: the streak is
    /// keyed by its first missed week, so catching up and then missing two more is a new one.
    @discardableResult
    public func recordFallingBehind(now: Date) async throws -> Int {
        try await immediateWrite { db in
            var sent = 0
            for semester in try SemesterRecord.fetchAll(db) {
                let calendar = try semester.calendar()
                // The newest week whose deadline has passed, while the semester runs.
                guard let current = calendar.currentWeek(at: now), !calendar.isClosed(at: now) else { continue }
                let lastPassed = now > calendar.deadline(week: current) ? current : current - 1
                guard lastPassed >= 2 else { continue }
                let enrolments = try EnrolmentRecord.fetchAll(
                    db, where: "semesterId = ? AND levelId IS NOT NULL AND coachId IS NOT NULL AND state = ?",
                    [semester.id, RuleOverrides.Standing.active.rawValue])
                // One query for the semester: who has either of the last two weeks in. Only the
                // others (rarely many) have their whole history read, to find the streak's start.
                let recent = Set(try Int64.fetchAll(db, sql: """
                    SELECT DISTINCT submission.enrolmentId FROM submission JOIN enrolment ON enrolment.id = submission.enrolmentId
                    WHERE enrolment.semesterId = ? AND submission.kind = 'week' AND submission.state NOT IN \(SubmissionState.notCountedSQL)
                      AND submission.week IN (?, ?)
                    """, arguments: [semester.id, lastPassed - 1, lastPassed]))
                for enrolment in enrolments {
                    guard let enrolmentId = enrolment.id, let coachId = enrolment.coachId, !recent.contains(enrolmentId) else { continue }
                    // Only weeks the enrolment owes: a student placed in week 6 has missed nothing before it.
                    let owed = enrolment.owesFromWeek
                    guard lastPassed - 1 >= owed else { continue }
                    // Weeks paused over are not missed, nor a week whose extension has not run out.
                    let overrides = try StudentContext.overrides(db, studentId: enrolment.studentId, enrolment: enrolment,
                                                                 enrolmentId: enrolmentId, calendar: calendar)
                    let streak = [lastPassed - 1, lastPassed]
                    if streak.contains(where: { overrides.excusedWeeks.contains($0) || (overrides.deadlines[.week($0)] ?? .distantPast) >= now }) {
                        continue
                    }
                    let covered = Set(try Int.fetchAll(db, sql: """
                        SELECT DISTINCT week FROM submission WHERE enrolmentId = ? AND kind = 'week' AND state NOT IN \(SubmissionState.notCountedSQL)
                        """, arguments: [enrolmentId]))
                    var start = lastPassed - 1
                    while start > owed, !covered.contains(start - 1) { start -= 1 }
                    try db.execute(sql: """
                        INSERT INTO scheduledNotice (enrolmentId, kind, week, daysBefore, eventId, sentAt)
                        VALUES (?, 'student_falling_behind', ?, 0, '', ?)
                        ON CONFLICT DO NOTHING
                        """, arguments: [enrolmentId, start, now])
                    guard db.changesCount == 1 else { continue }
                    let student = try StudentRecord.fetchOne(db, key: enrolment.studentId)
                    let missed = lastPassed - start + 1
                    let name = student?.name ?? enrolment.studentId
                    let message = StaffMessages.fallingBehind(student: name, missed: missed, fromWeek: start, toWeek: lastPassed, sinceStart: start == owed)
                    let eventId = try Self.recordEvent(
                        db, type: .studentFallingBehind, studentId: enrolment.studentId, levelId: enrolment.levelId,
                        slot: .week(lastPassed), occurredAt: now, submissionId: nil, feedbackId: nil, coachName: nil, message: message,
                        recipient: .coach(coachId))
                    try db.execute(sql: """
                        UPDATE scheduledNotice SET eventId = ? WHERE enrolmentId = ? AND kind = 'student_falling_behind' AND week = ?
                        """, arguments: [eventId, enrolmentId, start])
                    sent += 1
                }
            }
            return sent
        }
    }
}
