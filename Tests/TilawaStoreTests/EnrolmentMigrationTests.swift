import Foundation
import GRDB
import Testing
import TilawaCore
@_spi(Testing) @testable import TilawaStore

/// The migration "programme year: enrolments" on a database made by the release before it
/// (`Fixtures/release-0-before-enrolments.sql`, a `sqlite3 .dump` of one).
@Suite("Migration to enrolments, from the previous release's database")
struct EnrolmentMigrationTests {
    static let dump = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/release-0-before-enrolments.sql")

    /// The previous release's database, restored into a fresh file, then opened (and so migrated).
    func migrated() throws -> (AppDatabase, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("tilawa.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: try String(contentsOf: Self.dump, encoding: .utf8)) }
        try queue.close()
        return (try AppDatabase.open(path: path), folder)
    }

    @Test("every row survives; each submission points at the enrolment of its own semester")
    func noRowLost() throws {
        let (database, folder) = try migrated()
        defer { try? FileManager.default.removeItem(at: folder) }
        try database.writer.read { db in
            for (table, count) in [("submission", 6), ("rejection", 2), ("feedback", 1), ("job", 7), ("event", 7), ("student", 10),
                                   ("semester", 2), ("coach", 3), ("level", 4), ("curriculumWeek", 60), ("dropFile", 0)] {
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") == count, "\(table)")
            }
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE enrolmentId IS NULL OR feedbackDueAt IS NULL") == 0)
            #expect(try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM submission JOIN enrolment ON enrolment.id = submission.enrolmentId
                WHERE enrolment.studentId <> submission.studentId OR enrolment.semesterId <> submission.semesterId
                """) == 0)
            // The student table lost its per-semester columns.
            // (Later migrations add per-student attributes such as gender; the semester's are gone.)
            let studentColumns = Set(try db.columns(in: "student").map(\.name))
            #expect(studentColumns.isSuperset(of: ["id", "name"]) && studentColumns.isDisjoint(with: ["levelId", "coachId", "semesterId"]),
                    "\(studentColumns)")
            // Ten students, one enrolment each, plus S1001's fall (kept by their fall submissions).
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM enrolment") == 11)
            let s1001 = try EnrolmentRecord.filter(Column("studentId") == "S1001").order(Column("semesterId")).fetchAll(db)
            #expect(s1001.map(\.semesterId) == ["fall-2026", "spring-2027"])
            // Fall's coach is the one who answered fall's recording (C01), not today's (C02).
            #expect(s1001.map(\.coachId) == ["C01", "C02"])
            let due = try Row.fetchAll(db, sql: "SELECT receivedAt, feedbackDueAt FROM submission")
            for row in due {
                let received: Date = row["receivedAt"]
                let dueAt: Date = row["feedbackDueAt"]
                #expect(abs(dueAt.timeIntervalSince(received) - 48 * 3_600) < 0.002)
            }
        }
    }

    @Test("the leak is gone: S1001's spring timeline is empty, fall keeps its two weeks and its reply")
    func historyStaysInItsSemester() throws {
        let (database, folder) = try migrated()
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = ProgramPolicy()
        let springWeek1 = try SemesterCalendar(start: LocalDate(year: 2027, month: 1, day: 9), timeZoneIdentifier: "America/New_York")
            .unlock(week: 1).addingTimeInterval(3_600)
        let spring = try #require(try database.timeline(studentId: "S1001", policy: policy, now: springWeek1))
        #expect(spring.semester.id == "spring-2027" && spring.submissions.isEmpty)
        #expect(!spring.rules.eocEligible(history: spring.history))
        let fall = try #require(try database.timeline(studentId: "S1001", semesterId: "fall-2026", policy: policy, now: springWeek1))
        #expect(fall.submissions.map(\.week) == [1, 2] && fall.feedback.count == 1)
        // The artifact-bytes trigger still runs on the rebuilt schema.
        let before = try database.writer.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'artifact_bytes'") }
        try database.writer.write { db in
            try db.execute(sql: "UPDATE submission SET originalPath = NULL WHERE week = 1 AND studentId = 'S1001'")
        }
        let after = try database.writer.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'artifact_bytes'") }
        #expect(try #require(after) < #require(before))
    }
}
