import Foundation
import GRDB
import TilawaCore

/// Everything the rules need about one student in one enrolment, read inside the caller's
/// transaction.
///
/// `history` is the enrolment's own submissions: weeks, behind count, EOC and supersession
/// never see another semester. `elsewhere` is the student's other semesters, which only the
/// attempt window reads (it is the student's, across semesters).
struct StudentContext {
    let student: StudentRecord
    let enrolment: EnrolmentRecord
    let enrolmentId: Int64
    let semester: SemesterRecord
    let level: LevelRecord?
    let calendar: SemesterCalendar
    let rules: SubmissionRules
    let history: [AcceptedSubmission]
    let elsewhere: [AcceptedSubmission]
    let titles: [Int: String]

    /// The zone every instant in a message to this student is written in: their own, else
    /// the programme's (the rules' instants stay the programme's).
    var zone: TimeZone { student.zone(or: calendar.timeZone) }

    /// The context of `enrolment` (of `student`).
    static func load(_ db: SQLSession, student: StudentRecord, enrolment: EnrolmentRecord, policy: ProgramPolicy) throws -> StudentContext {
        guard let enrolmentId = enrolment.id else {
            throw StoreError.internalInconsistency("enrolment of \(student.id) in \(enrolment.semesterId) has no id")
        }
        guard let semester = try SemesterRecord.fetchOne(db, key: enrolment.semesterId) else {
            throw StoreError.internalInconsistency("student \(student.id) is enrolled in unknown semester \(enrolment.semesterId)")
        }
        let calendar = try semester.calendar()
        let level = try enrolment.levelId.flatMap { try LevelRecord.fetchOne(db, key: $0) }
        let overrides = try overrides(db, studentId: student.id, enrolment: enrolment, enrolmentId: enrolmentId, calendar: calendar)
        let privacy = try AppDatabase.privacyStanding(db, studentId: student.id, terms: policy.consent)
        let rules = try SubmissionRules(
            calendar: calendar, attemptWindow: policy.attemptWindow,
            eocRequiredWeeks: min(policy.eocRequiredWeeks, calendar.weekCount),
            eocOpensWeek: min(max(level?.eocOpensWeek ?? 14, 1), calendar.weekCount), placed: enrolment.isPlaced,
            placementDueHours: policy.placementDueHours, owesFromWeek: enrolment.owesFromWeek, overrides: overrides,
            lateJoiners: policy.lateJoiners, privacy: privacy)
        let titles = Dictionary(
            try CurriculumWeekRecord.fetchAll(db, where: "levelId = ?", [enrolment.levelId]).map { ($0.week, $0.title) },
            uniquingKeysWith: { first, _ in first })
        let all = try SubmissionRecord.fetchAll(
            db, where: "studentId = ? AND state NOT IN (?, ?)",
            [student.id, SubmissionState.failed.rawValue, SubmissionState.withdrawn.rawValue], orderBy: "receivedAt")
        return StudentContext(
            student: student, enrolment: enrolment, enrolmentId: enrolmentId, semester: semester, level: level,
            calendar: calendar, rules: rules,
            history: try all.filter { $0.enrolmentId == enrolmentId }.map { try $0.accepted() },
            elsewhere: try all.filter { $0.enrolmentId != enrolmentId }.map { try $0.accepted() },
            titles: titles)
    }

    /// What the back office changed about the enrolment's rules (DESIGN §11): its extensions,
    /// the student's grants with what is left of each, the weeks whose deadline fell in a
    /// pause, and its standing.
    static func overrides(
        _ db: SQLSession, studentId: String, enrolment: EnrolmentRecord, enrolmentId: Int64, calendar: SemesterCalendar
    ) throws -> RuleOverrides {
        var deadlines: [Slot: Date] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT slot, dueAt FROM deadlineExtension WHERE enrolmentId = ?", arguments: [enrolmentId]) {
            if let slot = try? Slot(parsing: row["slot"] as String, weekCount: calendar.weekCount) { deadlines[slot] = row["dueAt"] }
        }
        let grants = try Row.fetchAll(db, sql: """
            SELECT id, expiresAt, count - (SELECT COUNT(*) FROM submission
                WHERE submission.grantId = attemptGrant.id AND submission.state NOT IN \(SubmissionState.notCountedSQL)) AS remaining
            FROM attemptGrant WHERE studentId = ?
            """, arguments: [studentId]).map { RuleOverrides.Grant(id: $0["id"], remaining: $0["remaining"], expiresAt: $0["expiresAt"]) }
        let pauses = try Row.fetchAll(db, sql: "SELECT startedAt, endedAt FROM enrolmentPause WHERE enrolmentId = ?", arguments: [enrolmentId])
            .map { (from: $0["startedAt"] as Date, until: ($0["endedAt"] as Date?) ?? .distantFuture) }
        let excused = Set((1...calendar.weekCount).filter { week in
            let deadline = calendar.deadline(week: week)
            return pauses.contains { $0.from <= deadline && deadline < $0.until }
        })
        return RuleOverrides(deadlines: deadlines, grants: grants, excusedWeeks: excused, standing: enrolment.state)
    }

    /// The context of the student's current enrolment at `now` (see `currentEnrolment`),
    /// or nil for an unknown or erased student or one with no enrolment.
    static func load(_ db: SQLSession, studentId: String, now: Date, policy: ProgramPolicy) throws -> StudentContext? {
        // An erased student is no one: nothing is admitted or counted for them any more.
        guard let student = try StudentRecord.fetchOne(db, key: studentId), student.erasedAt == nil,
              let enrolment = try currentEnrolment(db, studentId: studentId, now: now) else { return nil }
        return try load(db, student: student, enrolment: enrolment, policy: policy)
    }

    /// The enrolment a student's recordings at `now` belong to: of the semesters that have
    /// started (week 1 unlocked), the latest; before any has, the earliest to come.
    static func currentEnrolment(_ db: SQLSession, studentId: String, now: Date) throws -> EnrolmentRecord? {
        let rows = try Row.fetchAll(db, sql: """
            SELECT enrolment.*, semester.startDate AS semesterStart, semester.timeZone AS semesterZone FROM enrolment
            JOIN semester ON semester.id = enrolment.semesterId
            WHERE enrolment.studentId = ? ORDER BY semester.startDate, enrolment.id
            """, arguments: [studentId])
        let dated = try rows.map { row -> (EnrolmentRecord, Date) in
            let start = LocalDate(row["semesterStart"] as String? ?? "") ?? LocalDate(year: 1970, month: 1, day: 1)
            let zone = TimeZone(identifier: row["semesterZone"] as String? ?? "") ?? .gmt
            let unlock = (try? SemesterCalendar(start: start, timeZone: zone))?.unlock(week: 1) ?? .distantPast
            return (try EnrolmentRecord(row: row), unlock)
        }
        return dated.last { $0.1 <= now }?.0 ?? dated.first?.0
    }

    /// The student's enrolment in `semesterId`, if any.
    static func enrolment(_ db: SQLSession, studentId: String, semesterId: String) throws -> EnrolmentRecord? {
        try EnrolmentRecord.fetchOne(db, where: "studentId = ? AND semesterId = ?", [studentId, semesterId])
    }

    static func weekInfo(_ db: SQLSession, levelId: String?, slot: Slot) throws -> EventPayload.WeekInfo {
        switch slot {
        case let .week(number):
            let row = try levelId.flatMap { try CurriculumWeekRecord.fetchOne(db, key: ["levelId": $0, "week": number]) }
            return .init(number: number, kind: "week", title: row?.title ?? "Week \(number)", passage: row?.passage)
        case .eoc:
            let level = try levelId.flatMap { try LevelRecord.fetchOne(db, key: $0) }
            return .init(number: nil, kind: "eoc", title: level?.eocTitle ?? "End-of-course assessment", passage: level?.eocPassage)
        case .assessment:
            return .init(number: nil, kind: "assessment", title: "Placement assessment", passage: nil)
        }
    }
}
