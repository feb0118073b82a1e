import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The migration "notifications: scheduled notices": one row per scheduled notification
    /// sent, the key that makes each exactly once. Never edited once landed.
    static func migrateScheduledNotices(_ db: Database) throws {
        try db.create(table: "scheduledNotice") { t in
            t.column("enrolmentId", .integer).notNull().references("enrolment")
            t.column("kind", .text).notNull()
            t.column("week", .integer).notNull()
            t.column("daysBefore", .integer).notNull()
            t.column("eventId", .text).notNull()
            t.column("sentAt", .datetime).notNull()
            t.primaryKey(["enrolmentId", "kind", "week", "daysBefore"])
        }
    }

    /// Records every calendar notification due at `now` and not sent yet: `week_unlocked` for
    /// the current week of each placed enrolment, `deadline_reminder`s while the student has no
    /// accepted recording of that week — each once per (enrolment, kind, week, reminder), in
    /// the same transaction as its row in `scheduledNotice` (a restart, a clock step back or a
    /// second writer never sends one twice). Only the current week's are due: an earlier
    /// week's deadline has passed, and a notice is never sent past its week's deadline (a
    /// daemon that was down sends what still makes sense, late). Returns how many were recorded.
    @discardableResult
    public func recordScheduledNotices(policy: ProgramPolicy, now: Date) async throws -> Int {
        try await immediateWrite { db in
            var sent = 0
            for semester in try SemesterRecord.fetchAll(db) {
                let calendar = try semester.calendar()
                let current = calendar.currentWeek(at: now).flatMap { now <= calendar.deadline(week: $0) ? $0 : nil }
                // Moved deadlines still ahead (DESIGN §11): their week's reminders count back from them.
                var extended: [Int64: [Int: Date]] = [:]
                for row in try Row.fetchAll(db, sql: """
                    SELECT deadlineExtension.enrolmentId, deadlineExtension.slot, deadlineExtension.dueAt FROM deadlineExtension
                    JOIN enrolment ON enrolment.id = deadlineExtension.enrolmentId
                    WHERE enrolment.semesterId = ? AND deadlineExtension.slot != 'eoc' AND deadlineExtension.dueAt >= ?
                    """, arguments: [semester.id, now]) {
                    if let week = Int(row["slot"] as String), calendar.isUnlocked(week: week, at: now) {
                        extended[row["enrolmentId"], default: [:]][week] = row["dueAt"]
                    }
                }
                let weeks = Set(extended.values.flatMap(\.keys)).union(current.map { [$0] } ?? [])
                guard !weeks.isEmpty else { continue }
                let weekList = weeks.sorted().map(String.init).joined(separator: ",")
                // Each student's notices in their own zone: the deadline is the programme's
                // instant (or their extension's), the reminders' hours and quiet hours are the
                // student's — the programme's, or the ones they chose in their preferences.
                var dueByKey: [String: [NotificationSchedule.Notice]] = [:]
                func due(week: Int, in zone: TimeZone, deadline: Date?, student: StudentRecord?) -> [NotificationSchedule.Notice] {
                    let key = "\(zone.identifier)|\(week)|\(deadline?.timeIntervalSince1970 ?? 0)|\(student?.quietHours ?? "")|\(student?.reminderTime ?? "")"
                    if let known = dueByKey[key] { return known }
                    let schedule = student?.schedule(policy.notificationSchedule) ?? policy.notificationSchedule
                    let notices = schedule.notices(week: week, calendar: calendar, in: zone, deadline: deadline)
                        .filter { $0.dueAt <= now && now < $0.expiresAt }
                    dueByKey[key] = notices
                    return notices
                }
                // Paused and departed students get no calendar notices.
                let enrolments = try EnrolmentRecord.fetchAll(
                    db, where: "semesterId = ? AND levelId IS NOT NULL AND coachId IS NOT NULL AND state = ?",
                    [semester.id, RuleOverrides.Standing.active.rawValue])
                // The students with a zone, quiet hours or reminder time of their own.
                let personal = Dictionary(try StudentRecord.fetchAll(db, sql: """
                    SELECT student.* FROM student JOIN enrolment ON enrolment.studentId = student.id
                    WHERE enrolment.semesterId = ?
                    AND (student.timeZone IS NOT NULL OR student.quietHours IS NOT NULL OR student.reminderTime IS NOT NULL)
                    """, arguments: [semester.id]).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                let alreadySent = Set(try Row.fetchAll(db, sql: """
                    SELECT scheduledNotice.enrolmentId, kind, week, daysBefore FROM scheduledNotice
                    JOIN enrolment ON enrolment.id = scheduledNotice.enrolmentId
                    WHERE enrolment.semesterId = ? AND week IN (\(weekList))
                    """, arguments: [semester.id]).map {
                        "\($0["enrolmentId"] as Int64)|\($0["kind"] as String)|\($0["week"] as Int)|\($0["daysBefore"] as Int)"
                    })
                let submitted = Set(try Row.fetchAll(db, sql: """
                    SELECT DISTINCT submission.enrolmentId, submission.week FROM submission JOIN enrolment ON enrolment.id = submission.enrolmentId
                    WHERE enrolment.semesterId = ? AND submission.kind = 'week' AND submission.week IN (\(weekList))
                    AND submission.state NOT IN \(SubmissionState.notCountedSQL)
                    """, arguments: [semester.id]).map { "\($0["enrolmentId"] as Int64)|\($0["week"] as Int)" })
                var titles: [String: CurriculumWeekRecord] = [:]
                for enrolment in enrolments {
                    guard let enrolmentId = enrolment.id, let levelId = enrolment.levelId else { continue }
                    let student = personal[enrolment.studentId]
                    let zone = student?.zone(or: calendar.timeZone) ?? calendar.timeZone
                    let moved = extended[enrolmentId] ?? [:]
                    var owed: [(week: Int, deadline: Date?)] = moved.keys.filter { $0 != current }.sorted().map { ($0, moved[$0]) }
                    if let current { owed.insert((current, moved[current]), at: 0) }
                    for (week, deadline) in owed {
                        for notice in due(week: week, in: zone, deadline: deadline, student: student)
                        where !alreadySent.contains("\(enrolmentId)|\(notice.kind.rawValue)|\(week)|\(notice.daysBefore)") {
                            // An earlier week kept open by an extension has had its unlock.
                            if notice.kind == .weekUnlocked, week != current { continue }
                            // No reminder for a week the student has in, or does not owe (placed later).
                            if notice.kind == .deadlineReminder, submitted.contains("\(enrolmentId)|\(week)") || week < enrolment.owesFromWeek { continue }
                            let key = "\(levelId)|\(week)"
                            let curriculum = try titles[key] ?? CurriculumWeekRecord.fetchOne(db, key: ["levelId": levelId, "week": week])
                            titles[key] = curriculum
                            let title = curriculum?.title ?? "Week \(week)"
                            let message = switch notice.kind {
                            case .weekUnlocked:
                                StudentMessages.weekUnlocked(week: week, title: title, passage: curriculum?.passage, due: notice.expiresAt, zone: zone)
                            case .deadlineReminder:
                                // A reminder sent late says how long is really left ("tomorrow", not "in 2 days").
                                StudentMessages.deadlineReminder(week: week, title: title, due: notice.expiresAt, zone: zone,
                                                                 daysLeft: calendar.localDaysBetween(now, and: notice.expiresAt, in: zone))
                            }
                            let eventId = try Self.recordEvent(
                                db, type: notice.kind == .weekUnlocked ? .weekUnlocked : .deadlineReminder, studentId: enrolment.studentId,
                                levelId: levelId, slot: .week(week), occurredAt: now, submissionId: nil, feedbackId: nil, coachName: nil,
                                message: message)
                            try db.execute(sql: """
                                INSERT INTO scheduledNotice (enrolmentId, kind, week, daysBefore, eventId, sentAt) VALUES (?, ?, ?, ?, ?, ?)
                                """, arguments: [enrolmentId, notice.kind.rawValue, week, notice.daysBefore, eventId, now])
                            sent += 1
                        }
                    }
                }
            }
            return sent
        }
    }
}
