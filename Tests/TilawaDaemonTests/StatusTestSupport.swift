import AsyncHTTPClient
import Foundation
import GRDB
@_spi(Testing) import TilawaStore
import TilawaTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Rows for status tests, written straight into the real schema (the rules that would
/// produce them are tested elsewhere; here only what `status` reads matters).
struct StatusSeed {
    let database: AppDatabase

    func submission(
        _ id: String, student: String, state: String, receivedAt: Date, originalPath: String? = nil, originalBytes: Int = 0,
        audioPath: String? = nil, audioBytes: Int? = nil, waveformPath: String? = nil
    ) throws {
        try database.engine.write { db in
            try db.execute(sql: """
                INSERT INTO submission (id, studentId, semesterId, enrolmentId, kind, week, state, receivedAt, feedbackDueAt, late,
                                        analysis, source, warnings, originalPath, originalBytes, audioPath, audioBytes, waveformPath, origin)
                SELECT ?, studentId, semesterId, id, 'week', 12, ?, ?, ?, 0, '{}', '{}', '[]', ?, ?, ?, ?, ?, 'cli'
                FROM enrolment WHERE studentId = ? ORDER BY id DESC LIMIT 1
                """, arguments: [id, state, receivedAt, receivedAt.addingTimeInterval(48 * 3_600), originalPath, originalBytes,
                                 audioPath, audioBytes, waveformPath, student])
            guard db.changesCount == 1 else { throw SeedError.unknownStudent(student) }
        }
    }

    /// A coach's reply to submission `submissionId`, received at `receivedAt`.
    func feedback(_ id: String, to submissionId: String, coach: String, receivedAt: Date) throws {
        try database.engine.write { db in
            try db.execute(sql: """
                INSERT INTO feedback (id, submissionId, coachId, receivedAt, state, analysis, audioPath, audioBytes, origin)
                VALUES (?, ?, ?, ?, 'ready', '{}', ?, 40, 'dropbox')
                """, arguments: [id, submissionId, coach, receivedAt, "feedback/\(id).opus"])
        }
    }

    func rejection(student: String, code: String, at date: Date) throws {
        try database.engine.write { db in
            try db.execute(sql: """
                INSERT INTO rejection (studentId, slot, receivedAt, code, reasons, message, detail, origin, bytes)
                VALUES (?, '12', ?, ?, '[]', 'refused', '', 'http', 100)
                """, arguments: [student, date, code])
        }
    }

    func event(student: String, at date: Date, deliveredAt: Date? = nil) throws {
        try database.engine.write { db in
            try db.execute(sql: """
                INSERT INTO event (id, studentId, type, payload, occurredAt, deliveredAt, nextAttemptAt)
                VALUES (?, ?, 'submission_received', '{}', ?, ?, ?)
                """, arguments: [UUID().uuidString, student, date, deliveredAt, date])
        }
    }

    func job(state: String, createdAt: Date) throws {
        try database.engine.write { db in
            try db.execute(sql: """
                INSERT INTO job (kind, subjectId, state, attempts, createdAt, notBefore) VALUES ('encode_submission', ?, ?, 1, ?, ?)
                """, arguments: [UUID().uuidString, state, createdAt, createdAt])
        }
    }

    /// A job a worker holds, its lease running out at `leaseExpiresAt`.
    func runningJob(worker: String, leaseExpiresAt: Date) throws {
        try database.engine.write { db in
            try db.execute(sql: """
                INSERT INTO job (kind, subjectId, state, attempts, createdAt, notBefore, lockedBy, leaseExpiresAt)
                VALUES ('encode_submission', ?, 'running', 1, ?, ?, ?, ?)
                """, arguments: [UUID().uuidString, leaseExpiresAt, leaseExpiresAt, worker, leaseExpiresAt])
        }
    }

    func dropFile(coach: String, outcome: String, at date: Date) throws {
        try database.engine.write { db in
            try db.execute(sql: """
                INSERT INTO dropFile (sha256, coachId, fileName, outcome, reason, processedAt) VALUES (?, ?, 'x.m4a', ?, NULL, ?)
                """, arguments: [UUID().uuidString, coach, outcome, date])
        }
    }

    enum SeedError: Error { case unknownStudent(String) }
}

