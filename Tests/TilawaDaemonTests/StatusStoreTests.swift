import Foundation
import GRDB
import Testing
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

@Suite("Status report: the database side (migration, running totals, read-only use)")
struct StatusStoreTests {
    private let now = Date(timeIntervalSince1970: 1_795_359_600)

    private func bytes(_ database: AppDatabase) throws -> Int64 {
        try database.statusFacts(now: now, feedbackDue: 48 * 3_600).artifactBytes
    }

    /// What the triggers must agree with: the sum over every row.
    private func summed(_ database: AppDatabase) throws -> Int64 {
        try database.writer.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT (SELECT COALESCE(SUM(CASE WHEN originalPath IS NULL THEN 0 ELSE originalBytes END
                                            + CASE WHEN audioPath IS NULL THEN 0 ELSE COALESCE(audioBytes, 0) END), 0) FROM submission)
                     + (SELECT COALESCE(SUM(CASE WHEN audioPath IS NULL THEN 0 ELSE COALESCE(audioBytes, 0) END), 0) FROM feedback)
                """) ?? -1
        }
    }

    @Test("The artifact-bytes total follows uploads, encodes, pruned originals, replies and deletes")
    func artifactBytesTotal() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try AppDatabase.open(path: scratch.path("tilawa.sqlite"))
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO semester (id, name, startDate, timeZone, weekCount, catchUpGraceDays) VALUES ('s', 'S', '2026-09-05', 'UTC', 15, 14);
                INSERT INTO coach (id, name) VALUES ('C01', 'Coach');
                INSERT INTO level (id, name) VALUES ('L1', 'Level');
                INSERT INTO student (id, name) VALUES ('S1', 'Student');
                INSERT INTO enrolment (studentId, semesterId, levelId, coachId, createdAt) VALUES ('S1', 's', 'L1', 'C01', '2026-09-01 00:00:00.000');
                """)
        }
        let seed = StatusSeed(database: database)
        #expect(try bytes(database) == 0)
        try seed.submission("a", student: "S1", state: "processing", receivedAt: now, originalPath: "originals/a.wav", originalBytes: 1_000)
        #expect(try bytes(database) == 1_000)
        try database.writer.write { db in
            // The encode finishes; then the original passes its retention and is pruned.
            try db.execute(sql: "UPDATE submission SET audioPath = 'submissions/a.opus', audioBytes = 70, state = 'awaiting_feedback' WHERE id = 'a'")
        }
        #expect(try bytes(database) == 1_070)
        try database.writer.write { db in
            try db.execute(sql: "UPDATE submission SET state = 'feedback_ready' WHERE id = 'a'")
            try db.execute(sql: "UPDATE submission SET originalPath = NULL WHERE id = 'a'")
            try db.execute(sql: """
                INSERT INTO feedback (id, submissionId, coachId, receivedAt, state, analysis, audioPath, audioBytes, origin)
                VALUES ('f', 'a', 'C01', ?, 'ready', '{}', 'feedback/f.opus', 40, 'dropbox')
                """, arguments: [now])
        }
        #expect(try bytes(database) == 110)
        try seed.submission("b", student: "S1", state: "processing", receivedAt: now, originalPath: "originals/b.wav", originalBytes: 500)
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM feedback")
            try db.execute(sql: "DELETE FROM submission WHERE id = 'a'")
        }
        #expect(try bytes(database) == 500)
        #expect(try bytes(database) == summed(database))
    }

    @Test("The migration seeds the total from rows that existed before it")
    func seededFromExistingRows() throws {
        let migrator = AppDatabase.migrator
        let index = try #require(migrator.migrations.firstIndex(of: "status: report indexes and meta"))
        try #require(index > 0)
        let queue = try DatabaseQueue()
        try migrator.migrate(queue, upTo: migrator.migrations[index - 1])
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO semester (id, name, startDate, timeZone, weekCount, catchUpGraceDays) VALUES ('s', 'S', '2026-09-05', 'UTC', 15, 14);
                INSERT INTO coach (id, name) VALUES ('C01', 'Coach');
                INSERT INTO level (id, name) VALUES ('L1', 'Level');
                INSERT INTO student (id, name, levelId, coachId, semesterId) VALUES ('S1', 'Student', 'L1', 'C01', 's');
                INSERT INTO submission (id, studentId, semesterId, kind, week, state, receivedAt, late, analysis, source, warnings,
                                        originalPath, originalBytes, audioPath, audioBytes, origin)
                VALUES ('a', 'S1', 's', 'week', 1, 'feedback_ready', '2026-11-01 10:00:00.000', 0, '{}', '{}', '[]', NULL, 9000, 'x.opus', 300, 'cli'),
                       ('b', 'S1', 's', 'week', 2, 'processing', '2026-11-02 10:00:00.000', 0, '{}', '{}', '[]', 'o.wav', 2000, NULL, NULL, 'cli');
                INSERT INTO feedback (id, submissionId, coachId, receivedAt, state, analysis, audioPath, audioBytes, origin)
                VALUES ('f', 'a', 'C01', '2026-11-02 10:00:00.000', 'ready', '{}', 'f.opus', 45, 'dropbox');
                """)
        }
        let database = try AppDatabase(queue)
        #expect(try bytes(database) == 300 + 2_000 + 45)
    }

    @Test("A read-only connection reads while the daemon's pool holds a write transaction open")
    func readOnlyDoesNotWaitForWriters() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("tilawa.sqlite")
        let daemon = try AppDatabase.open(path: path)
        let reader = try AppDatabase.openReadOnly(path: path)
        try daemon.writer.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: "INSERT INTO coach (id, name) VALUES ('C09', 'Writer')")
                // The writer holds its lock; the status reader still gets a snapshot at once.
                let facts = try reader.statusFacts(now: now, feedbackDue: 48 * 3_600)
                #expect(facts.hasSchema)
                return .commit
            }
        }
        #expect(try reader.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM coach") } == 1)
        #expect(throws: (any Error).self) {
            try reader.writer.write { db in try db.execute(sql: "DELETE FROM coach") }
        }
    }
}
