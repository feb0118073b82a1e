import GRDB

extension AppDatabase {
    /// The schema's history. Migrations are never edited once landed; a change is a new one
    /// (GRDB's Migrations.md, "Good Practices").
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: programme, submissions, jobs, events") { db in
            try db.create(table: "semester") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("startDate", .text).notNull()
                t.column("timeZone", .text).notNull()
                t.column("weekCount", .integer).notNull()
                t.column("catchUpGraceDays", .integer).notNull()
            }
            try db.create(table: "coach") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("email", .text)
            }
            try db.create(table: "level") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
            }
            try db.create(table: "curriculumWeek") { t in
                t.column("levelId", .text).notNull().references("level", onDelete: .cascade)
                t.column("week", .integer).notNull()
                t.column("title", .text).notNull()
                t.column("passage", .text).notNull()
                t.primaryKey(["levelId", "week"])
            }
            try db.create(table: "student") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("levelId", .text).notNull().references("level")
                t.column("coachId", .text).notNull().references("coach").indexed()
                t.column("semesterId", .text).notNull().references("semester")
            }
            try db.create(table: "submission") { t in
                t.primaryKey("id", .text)
                t.column("studentId", .text).notNull().references("student")
                t.column("semesterId", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("week", .integer)
                t.column("state", .text).notNull()
                t.column("receivedAt", .datetime).notNull()
                t.column("late", .boolean).notNull()
                t.column("analysis", .jsonText).notNull()
                t.column("source", .jsonText).notNull()
                t.column("warnings", .jsonText).notNull()
                t.column("originalPath", .text)
                t.column("originalBytes", .integer).notNull()
                t.column("audioPath", .text)
                t.column("audioBytes", .integer)
                t.column("waveformPath", .text)
                t.column("outputGainDB", .double)
                t.column("encodedAt", .datetime)
                t.column("failureReason", .text)
                t.column("origin", .text).notNull()
            }
            try db.create(index: "submission_student_received", on: "submission", columns: ["studentId", "receivedAt"])
            try db.create(index: "submission_state_received", on: "submission", columns: ["state", "receivedAt"])

            try db.create(table: "rejection") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("studentId", .text).notNull()
                t.column("slot", .text).notNull()
                t.column("receivedAt", .datetime).notNull()
                t.column("code", .text).notNull()
                t.column("reasons", .jsonText).notNull()
                t.column("message", .text).notNull()
                t.column("detail", .text).notNull()
                t.column("analysis", .jsonText)
                t.column("origin", .text).notNull()
                t.column("bytes", .integer).notNull()
            }
            try db.create(index: "rejection_received", on: "rejection", columns: ["receivedAt"])
            try db.create(index: "rejection_student", on: "rejection", columns: ["studentId", "receivedAt"])

            try db.create(table: "feedback") { t in
                t.primaryKey("id", .text)
                t.column("submissionId", .text).notNull().references("submission").indexed()
                t.column("coachId", .text).notNull()
                t.column("receivedAt", .datetime).notNull()
                t.column("notes", .text)
                t.column("state", .text).notNull()
                t.column("analysis", .jsonText).notNull()
                t.column("originalPath", .text)
                t.column("audioPath", .text)
                t.column("audioBytes", .integer)
                t.column("waveformPath", .text)
                t.column("outputGainDB", .double)
                t.column("origin", .text).notNull()
            }

            try db.create(table: "job") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("kind", .text).notNull()
                t.column("subjectId", .text).notNull()
                t.column("state", .text).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("createdAt", .datetime).notNull()
                t.column("notBefore", .datetime).notNull()
                t.column("lockedBy", .text)
                t.column("lockedAt", .datetime)
                t.column("lastError", .text)
            }
            try db.create(index: "job_state_notBefore", on: "job", columns: ["state", "notBefore"])

            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("id", .text).notNull().unique()
                t.column("studentId", .text).notNull()
                t.column("type", .text).notNull()
                t.column("payload", .jsonText).notNull()
                t.column("occurredAt", .datetime).notNull()
                t.column("deliveredAt", .datetime)
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("nextAttemptAt", .datetime).notNull()
                t.column("lastError", .text)
            }
            try db.create(index: "event_student_seq", on: "event", columns: ["studentId", "seq"])
            try db.create(index: "event_undelivered", on: "event", columns: ["deliveredAt", "nextAttemptAt"])

            try db.create(table: "idempotencyKey") { t in
                t.column("studentId", .text).notNull()
                t.column("key", .text).notNull()
                t.column("requestHash", .text).notNull()
                t.column("state", .text).notNull()
                t.column("responseStatus", .integer)
                t.column("responseBody", .blob)
                t.column("createdAt", .datetime).notNull()
                t.primaryKey(["studentId", "key"])
            }

            try db.create(table: "dropFile") { t in
                t.primaryKey("sha256", .text)
                t.column("coachId", .text).notNull()
                t.column("fileName", .text).notNull()
                t.column("outcome", .text).notNull()
                t.column("reason", .text)
                t.column("feedbackId", .text)
                t.column("processedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2: feedback overdue marker") { db in
            try db.alter(table: "submission") { t in
                t.add(column: "overdueNotifiedAt", .datetime)
            }
            try db.create(index: "feedback_submission_received", on: "feedback", columns: ["submissionId", "receivedAt"])
        }
        migrator.registerMigration("status: report indexes and meta", migrate: AppDatabase.migrateStatusReport)
        migrator.registerMigration("programme year: enrolments", migrate: AppDatabase.migrateEnrolments)
        migrator.registerMigration("notifications: read and listened state", migrate: AppDatabase.migrateReadState)
        migrator.registerMigration("notifications: scheduled notices", migrate: AppDatabase.migrateScheduledNotices)
        migrator.registerMigration("notifications: recipients", migrate: AppDatabase.migrateEventRecipients)
        migrator.registerMigration("feedback: questions", migrate: AppDatabase.migrateComments)
        migrator.registerMigration("notifications: events about no student", migrate: AppDatabase.migrateStaffNotices)
        migrator.registerMigration("feedback: voice questions", migrate: AppDatabase.migrateCommentClips)
        migrator.registerMigration("submissions: withdraw and recorded-at", migrate: AppDatabase.migrateWithdrawals)
        migrator.registerMigration("uploads: resumable", migrate: AppDatabase.migrateResumableUploads)
        migrator.registerMigration("feedback: comments by author", migrate: AppDatabase.migrateCommentAuthors)
        migrator.registerMigration("curriculum: ayahs", migrate: AppDatabase.migrateAyahs)
        migrator.registerMigration("idempotency: keys by owner", migrate: AppDatabase.migrateIdempotencyOwners)
        migrator.registerMigration("annotations", migrate: AppDatabase.migrateAnnotations)
        migrator.registerMigration("desk: login links and sessions", migrate: AppDatabase.migrateDeskSessions)
        migrator.registerMigration("submissions: ayah markers", migrate: AppDatabase.migrateAyahMarkers)
        migrator.registerMigration("notifications: read one by one", migrate: AppDatabase.migrateEventReadAt)
        migrator.registerMigration("enrolments: weeks owed", migrate: AppDatabase.migrateWeeksOwed)
        migrator.registerMigration("people: gender and bio", migrate: AppDatabase.migrateGenderAndBio)
        migrator.registerMigration("announcements", migrate: AppDatabase.migrateAnnouncements)
        migrator.registerMigration("students: time zone and push preferences", migrate: AppDatabase.migrateStudentPreferences)
        migrator.registerMigration("uploads: refusals told", migrate: AppDatabase.migrateUploadRefusalNotice)
        migrator.registerMigration("coaches: photo", migrate: AppDatabase.migrateCoachPhoto)
        migrator.registerMigration("people: subjects", migrate: AppDatabase.migrateSubjects)
        migrator.registerMigration("back office: overrides and audit", migrate: AppDatabase.migrateBackOffice)
        migrator.registerMigration("erasure: ledger", migrate: AppDatabase.migrateErasure)
        migrator.registerMigration("jobs: leases", migrate: AppDatabase.migrateJobLeases)
        migrator.registerMigration("uploads: any node", migrate: AppDatabase.migrateUploadsAnyNode)
        migrator.registerMigration("nodes: seen", migrate: AppDatabase.migrateNodes)
        migrator.registerMigration("events: sending claims", migrate: AppDatabase.migrateEventClaims)
        migrator.registerMigration("idempotency: holder", migrate: AppDatabase.migrateIdempotencyHolder)
        migrator.registerMigration("students: own quiet hours and reminder time", migrate: AppDatabase.migrateStudentQuietHours)
        migrator.registerMigration("erasure: subjects and re-admission", migrate: AppDatabase.migrateErasureReadmission)
        migrator.registerMigration("devices: pushes", migrate: AppDatabase.migrateDevices)
        migrator.registerMigration("pushes: deliveries", migrate: AppDatabase.migratePushDeliveries)
        migrator.registerMigration("people: tokens valid after", migrate: AppDatabase.migrateTokensValidAfter)
        migrator.registerMigration("scim: provisioned users", migrate: AppDatabase.migrateSCIMUsers)
        migrator.registerMigration("privacy: consent and erasure requests", migrate: AppDatabase.migratePrivacy)
        migrator.registerMigration("jobs: transient failures", migrate: AppDatabase.migrateJobTransientFailures)
        migrator.registerMigration("scim: email lookup, userName free once deleted", migrate: AppDatabase.migrateSCIMEmails)
        return migrator
    }
}
