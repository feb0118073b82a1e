import Foundation
import GRDB

extension AppDatabase {
    /// The migration "privacy: consent and erasure requests" (DESIGN §16): a student's date of
    /// birth (students.csv's `date_of_birth`, `YYYY-MM-DD`), the consents to the recording
    /// policy with their history, and the students' requests for erasure. Never edited once
    /// landed; `PostgresSchema` has its twin under the same name.
    static func migratePrivacy(_ db: Database) throws {
        try db.alter(table: "student") { t in t.add(column: "dateOfBirth", .text) }
        try db.create(table: "consent") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("studentId", .text).notNull()
            t.column("version", .text).notNull()
            t.column("givenBy", .text).notNull()
            t.column("guardianName", .text)
            t.column("givenAt", .datetime).notNull()
            t.column("withdrawnAt", .datetime)
            t.column("withdrawnBy", .text)
        }
        try db.create(index: "consent_student", on: "consent", columns: ["studentId"])
        // At most one current consent a student, whatever races: both engines keep partial indexes alike.
        try db.create(index: "consent_current", on: "consent", columns: ["studentId"], unique: true,
                      condition: Column("withdrawnAt") == nil)
        try db.create(table: "erasureRequest") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("studentId", .text).notNull()
            t.column("requestedAt", .datetime).notNull()
            t.column("dueAt", .datetime).notNull()
            t.column("requestedBy", .text).notNull()
            t.column("cancelledAt", .datetime)
            t.column("cancelledBy", .text)
        }
        try db.create(index: "erasureRequest_pending", on: "erasureRequest", columns: ["studentId"], unique: true,
                      condition: Column("cancelledAt") == nil)
        try db.create(index: "erasureRequest_due", on: "erasureRequest", columns: ["dueAt"], condition: Column("cancelledAt") == nil)
    }
}
