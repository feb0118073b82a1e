import Foundation
import GRDB

extension AppDatabase {
    /// The migration "back office: overrides and audit" (DESIGN §11). Never edited once landed.
    ///
    /// - `audit`: one row per back-office action — who, when, why, what it was before and after
    ///   (JSON) — written in the action's own transaction.
    /// - `deadlineExtension`: one moved deadline per enrolment and slot (`"3"`, `"eoc"`); a later
    ///   extension of the same slot replaces it (the audit keeps each).
    /// - `attemptGrant`: recordings beyond the attempt window, until an instant. What is left of
    ///   one is its count less the standing submissions that name it (`submission.grantId`), so a
    ///   withdrawn or failed recording gives its grant back without bookkeeping.
    /// - `coachCover`: a coach's open work handed to another until an instant.
    /// - `enrolmentPause`: when an enrolment was paused and resumed; weeks whose deadline falls
    ///   in a pause are not owed.
    /// - `enrolment.state`: `active`, `paused` or `left`.
    /// - `submission.levelId`, `submission.title`: the level and week title a recording was
    ///   recited for, kept when the enrolment's level changes (filled here from the enrolment's
    ///   level, which no enrolment with recordings could change before this release).
    /// - `enrolmentChange.auditId`: the audit row of a back-office change, so `GET /v1/audit`
    ///   lists it once.
    static func migrateBackOffice(_ db: Database) throws {
        try db.create(table: "audit") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("at", .datetime).notNull()
            t.column("actor", .text).notNull()
            t.column("action", .text).notNull()
            t.column("studentId", .text)
            t.column("otherStudentId", .text)
            t.column("coachId", .text)
            t.column("otherCoachId", .text)
            t.column("reason", .text).notNull()
            t.column("before", .text)
            t.column("after", .text)
        }
        try db.create(index: "audit_at", on: "audit", columns: ["at"])
        try db.create(index: "audit_student", on: "audit", columns: ["studentId", "at"])
        try db.create(index: "audit_coach", on: "audit", columns: ["coachId", "at"])
        try db.create(table: "deadlineExtension") { t in
            t.column("enrolmentId", .integer).notNull().references("enrolment")
            t.column("slot", .text).notNull()
            t.column("dueAt", .datetime).notNull()
            t.primaryKey(["enrolmentId", "slot"])
        }
        try db.create(table: "attemptGrant") { t in
            t.primaryKey("id", .text)
            t.column("studentId", .text).notNull().references("student").indexed()
            t.column("count", .integer).notNull()
            t.column("expiresAt", .datetime).notNull()
            t.column("createdAt", .datetime).notNull()
        }
        try db.create(table: "coachCover") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("coachId", .text).notNull().references("coach").indexed()
            t.column("coveringCoachId", .text).notNull().references("coach").indexed()
            t.column("startsAt", .datetime).notNull()
            t.column("until", .datetime).notNull()
        }
        try db.create(table: "enrolmentPause") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("enrolmentId", .integer).notNull().references("enrolment").indexed()
            t.column("startedAt", .datetime).notNull()
            t.column("endedAt", .datetime)
        }
        try db.alter(table: "enrolment") { t in
            t.add(column: "state", .text).notNull().defaults(to: "active")
        }
        try db.alter(table: "submission") { t in
            t.add(column: "grantId", .text)
            t.add(column: "levelId", .text)
            t.add(column: "title", .text)
        }
        try db.create(index: "submission_grant", on: "submission", columns: ["grantId"], condition: Column("grantId") != nil)
        try db.execute(sql: """
            UPDATE submission SET levelId = (SELECT levelId FROM enrolment WHERE enrolment.id = submission.enrolmentId)
            WHERE kind IN ('week', 'eoc');
            UPDATE submission SET title = CASE kind
                WHEN 'week' THEN (SELECT title FROM curriculumWeek WHERE curriculumWeek.levelId = submission.levelId AND curriculumWeek.week = submission.week)
                WHEN 'eoc' THEN (SELECT eocTitle FROM level WHERE level.id = submission.levelId) END
            WHERE levelId IS NOT NULL;
            """)
        try db.alter(table: "enrolmentChange") { t in
            t.add(column: "auditId", .integer)
        }
    }
}
