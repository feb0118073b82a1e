import Foundation
import GRDB

extension AppDatabase {
    /// The migration "programme year: enrolments": a student belongs to the programme, an
    /// enrolment ties them to one semester with a level and a coach. Never edited once landed.
    ///
    /// What it does with a database of the release before it (tested from a dump of one):
    /// - Every student row becomes a student (id, name) and an enrolment in the semester it
    ///   named, with its level and coach, recorded as placed by `migration`.
    /// - A submission of a semester the student row no longer named (a roster re-import
    ///   moved them on) gets an enrolment of that semester too, so its history stays its
    ///   own. Its coach is the one who last answered a recording of that semester, else the
    ///   student's coach at the time of the migration; its level is the student's level at
    ///   that time (the old schema did not keep earlier levels).
    /// - A submission records which one superseded it (`supersededBy`), so a failed
    ///   re-recording can give the week back to the one it replaced.
    /// - Every submission points at its enrolment; `feedbackDueAt` is filled with the
    ///   turnaround the old release applied to every kind (48 hours).
    /// - `student` is rebuilt without its NOT NULL level, coach and semester columns.
    static func migrateEnrolments(_ db: Database) throws {
        try db.alter(table: "level") { t in
            t.add(column: "position", .integer).notNull().defaults(to: 0)
            t.add(column: "eocOpensWeek", .integer).notNull().defaults(to: 14)
            t.add(column: "eocTitle", .text)
            t.add(column: "eocPassage", .text)
            t.add(column: "eocArabic", .text)
            t.add(column: "eocCovers", .text)
        }
        // Levels were upserted in the order of the programme file.
        try db.execute(sql: "UPDATE level SET position = (SELECT COUNT(*) FROM level AS earlier WHERE earlier.rowid < level.rowid)")
        try db.alter(table: "coach") { t in
            t.add(column: "placing", .boolean).notNull().defaults(to: false)
        }

        try db.create(table: "enrolment") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("studentId", .text).notNull().references("student")
            t.column("semesterId", .text).notNull().references("semester")
            t.column("levelId", .text).references("level")
            t.column("coachId", .text).references("coach").indexed()
            t.column("createdAt", .datetime).notNull()
            t.column("placedAt", .datetime)
            t.column("placedBy", .text)
            t.column("outcome", .text)
            t.column("eocAvailableNotifiedAt", .datetime)
            t.uniqueKey(["studentId", "semesterId"])
        }
        try db.create(table: "enrolmentChange") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("enrolmentId", .integer).notNull().references("enrolment").indexed()
            t.column("change", .text).notNull()
            t.column("levelId", .text)
            t.column("coachId", .text)
            t.column("changedAt", .datetime).notNull()
            t.column("changedBy", .text).notNull()
        }

        let now = Date()
        try db.execute(sql: """
            INSERT INTO enrolment (studentId, semesterId, levelId, coachId, createdAt, placedAt, placedBy)
            SELECT id, semesterId, levelId, coachId, :now, :now, 'migration' FROM student;
            INSERT OR IGNORE INTO enrolment (studentId, semesterId, levelId, coachId, createdAt, placedAt, placedBy)
            SELECT DISTINCT submission.studentId, submission.semesterId, student.levelId,
                   COALESCE((SELECT feedback.coachId FROM feedback JOIN submission AS answered ON answered.id = feedback.submissionId
                             WHERE answered.studentId = submission.studentId AND answered.semesterId = submission.semesterId
                             ORDER BY feedback.receivedAt DESC LIMIT 1), student.coachId),
                   :now, :now, 'migration'
            FROM submission JOIN student ON student.id = submission.studentId;
            INSERT INTO enrolmentChange (enrolmentId, change, levelId, coachId, changedAt, changedBy)
            SELECT id, 'enrolled', levelId, coachId, :now, 'migration' FROM enrolment;
            """, arguments: ["now": now])

        try db.alter(table: "submission") { t in
            t.add(column: "enrolmentId", .integer).references("enrolment")
            t.add(column: "feedbackDueAt", .datetime)
            t.add(column: "result", .text)
            t.add(column: "supersededBy", .text)
        }
        try db.execute(sql: """
            UPDATE submission SET
                enrolmentId = (SELECT id FROM enrolment WHERE enrolment.studentId = submission.studentId
                               AND enrolment.semesterId = submission.semesterId),
                feedbackDueAt = strftime('%Y-%m-%d %H:%M:%f', receivedAt, '+48 hours')
            """)
        try db.create(index: "submission_enrolment_received", on: "submission", columns: ["enrolmentId", "receivedAt"])
        // Overdue counts and the overdue sweep: one index range.
        try db.create(index: "submission_state_due", on: "submission", columns: ["state", "feedbackDueAt"])
        try db.alter(table: "feedback") { t in
            t.add(column: "result", .text)
        }

        // SQLite cannot drop NOT NULL constraints: rebuild the table (foreign keys are
        // checked when the migration ends, GRDB's default `.deferred`).
        try db.create(table: "new_student") { t in
            t.primaryKey("id", .text)
            t.column("name", .text).notNull()
        }
        try db.execute(sql: "INSERT INTO new_student (id, name) SELECT id, name FROM student")
        try db.drop(table: "student")
        try db.rename(table: "new_student", to: "student")
    }
}
