import Foundation
import Crypto
import GRDB
import TilawaCore

/// What an erasure removed; its files are unlinked by the caller after the commit.
public struct Erasure: Sendable, Equatable {
    public var studentId: String
    /// Paths relative to the artifacts root (and their MP4/CAF variants).
    public var files: [String]
    public var recordings: Int
    public var replies: Int
    public var events: Int
}

/// Why a student cannot be erased now.
public enum ErasureRefusal: Error, Sendable, Equatable {
    case unknownStudent(String)
    /// An enrolment still runs (its semester has not closed and the student has not left): `--force` erases anyway.
    case openEnrolment(String, semester: String)

    public var code: String {
        switch self {
        case .unknownStudent: "unknown_student"
        case .openEnrolment: "open_enrolment"
        }
    }

    public var message: String {
        switch self {
        case let .unknownStudent(id): "No student has the id \(RosterText.quoted(id))."
        case let .openEnrolment(id, semester):
            "Student \(RosterText.quoted(id)) is enrolled in \(RosterText.quoted(semester)), which has not closed; mark them left first or erase with force."
        }
    }
}

extension AppDatabase {
    /// The migration "erasure: ledger": the ids erased and when (kept: a restore of an older
    /// backup re-applies them), and the erasure mark on a student. Never edited once landed.
    static func migrateErasure(_ db: Database) throws {
        try db.create(table: "erasure") { t in
            t.primaryKey("studentId", .text)
            t.column("erasedAt", .datetime).notNull()
        }
        try db.alter(table: "student") { t in
            t.add(column: "erasedAt", .datetime)
        }
    }

    /// The migration "erasure: subjects and re-admission": the ledger keeps a digest of the
    /// erased student's sign-in subject (never the subject itself), so a roster row carrying it
    /// under another id is known, and when an operator re-admitted the id as a new student.
    /// Never edited once landed.
    static func migrateErasureReadmission(_ db: Database) throws {
        try db.alter(table: "erasure") { t in
            t.add(column: "subjectDigest", .text)
            t.add(column: "readmittedAt", .datetime)
        }
    }

    /// The ledger's digest of a sign-in subject: SHA-256 over a fixed label and the subject, in
    /// hex. One-way: it recognises the subject when a roster names it again, and tells nobody
    /// what it was.
    static func subjectDigest(_ subject: String) -> String {
        SHA256.hash(data: Data(("tilawa erased subject\u{0}" + subject).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Erases a student (DESIGN §12) in one transaction with its audit row: their name and
    /// per-student fields; every audio file of theirs (originals, variants, waveforms, voice
    /// clips) and the coaches' replies to them (paths returned, to unlink after the commit); the
    /// text of comments and marks on them and the coaches' notes; the stored response bodies of
    /// their idempotency keys; their events' messages (undelivered ones go, with their webhook
    /// deliveries; delivered ones keep only id, type and time); their `rejection` rows and the
    /// drop-file names of replies to them; their unfinished uploads; what the identity provider
    /// provisioned of them (SCIM's name, emails, subject); their date of birth, their consents to
    /// the recording policy and their erasure requests (the one this carries out included: a
    /// student admitted again under the id consents anew). What stays: ids, states,
    /// instants, the counts `status` and the rules read — nothing that says who they were. The
    /// ledger row (`erasure`) makes a restore of an older backup erase them again.
    public func erase(studentId: String, force: Bool, by actor: String, reason: String, now: Date) throws -> Result<Erasure, ErasureRefusal> {
        try immediateWrite { db in try Self.erase(db, studentId: studentId, force: force, by: actor, reason: reason, now: now) }
    }

    /// `erase` from async code.
    public func erase(studentId: String, force: Bool, by actor: String, reason: String, now: Date) async throws -> Result<Erasure, ErasureRefusal> {
        try await immediateWrite { db in try Self.erase(db, studentId: studentId, force: force, by: actor, reason: reason, now: now) }
    }

    static func erase(_ db: SQLSession, studentId: String, force: Bool, by actor: String, reason: String, now: Date) throws -> Result<Erasure, ErasureRefusal> {
        guard try StudentRecord.exists(db, key: studentId) else { return .failure(.unknownStudent(studentId)) }
        if !force {
            for row in try Row.fetchAll(db, sql: """
                SELECT enrolment.semesterId, enrolment.state, semester.startDate, semester.timeZone, semester.weekCount, semester.catchUpGraceDays
                FROM enrolment JOIN semester ON semester.id = enrolment.semesterId WHERE enrolment.studentId = ?
                """, arguments: [studentId]) where (row["state"] as String?) != RuleOverrides.Standing.left.rawValue {
                let semester = try SemesterRecord.fetchOne(db, key: row["semesterId"] as String)
                if let calendar = try semester?.calendar(), !calendar.isClosed(at: now) {
                    return .failure(.openEnrolment(studentId, semester: row["semesterId"]))
                }
            }
        }
        let mine = "SELECT id FROM submission WHERE studentId = :student"
        let arguments: SQLArguments = ["student": studentId]
        let files = try audioFiles(db, ofSubmissions: mine, arguments)
        let digest = try String.fetchOne(db, sql: "SELECT subject FROM student WHERE id = ?", arguments: [studentId]).map(subjectDigest)
        let recordings = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM submission WHERE studentId = :student", arguments: arguments) ?? 0
        let replies = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM feedback WHERE submissionId IN (\(mine))", arguments: arguments) ?? 0
        // Out of every queue, digest and count at once: what awaited a reply (or its encode) is
        // withdrawn, and the encodes not yet started of their recordings and the replies to them
        // are cancelled (a running one's writes fail on its lost files and change nothing).
        try db.execute(sql: """
            UPDATE submission SET state = :withdrawn, withdrawnAt = :now WHERE studentId = :student AND state IN (:processing, :awaiting);
            UPDATE job SET state = :cancelled WHERE state = :queued AND (subjectId IN (\(mine))
                OR subjectId IN (SELECT id FROM feedback WHERE submissionId IN (\(mine))));
            """, arguments: ["student": studentId, "now": now, "withdrawn": SubmissionState.withdrawn.rawValue,
                             "processing": SubmissionState.processing.rawValue, "awaiting": SubmissionState.awaitingFeedback.rawValue,
                             "cancelled": JobRecord.State.cancelled.rawValue, "queued": JobRecord.State.queued.rawValue])
        try db.execute(sql: """
            UPDATE submission SET originalPath = NULL, audioPath = NULL, waveformPath = NULL, audioBytes = NULL,
                speechSegments = NULL, ayahMarkers = NULL, warnings = '[]', failureReason = NULL WHERE studentId = :student;
            UPDATE feedback SET originalPath = NULL, audioPath = NULL, waveformPath = NULL, audioBytes = NULL, notes = NULL
                WHERE submissionId IN (\(mine));
            UPDATE comment SET text = '', audioPath = NULL, waveformPath = NULL, audioBytes = NULL WHERE submissionId IN (\(mine));
            UPDATE annotation SET text = '', audioPath = NULL, waveformPath = NULL WHERE submissionId IN (\(mine));
            UPDATE dropFile SET fileName = '' WHERE feedbackId IN (SELECT id FROM feedback WHERE submissionId IN (\(mine)));
            DELETE FROM idempotencyKey WHERE owner = :student;
            DELETE FROM rejection WHERE studentId = :student;
            DELETE FROM resumableUpload WHERE studentId = :student;
            DELETE FROM device WHERE ownerKind = 'student' AND ownerId = :student;
            DELETE FROM scimUser WHERE role = 'student' AND id = :student;
            DELETE FROM consent WHERE studentId = :student;
            DELETE FROM erasureRequest WHERE studentId = :student;
            UPDATE student SET name = '', gender = NULL, timeZone = NULL, timeZoneSetBy = NULL, subject = NULL, quietHours = NULL, reminderTime = NULL,
                dateOfBirth = NULL, erasedAt = :now
                WHERE id = :student;
            INSERT INTO erasure (studentId, erasedAt, subjectDigest) VALUES (:student, :now, :digest)
                ON CONFLICT (studentId) DO UPDATE SET erasedAt = excluded.erasedAt,
                    subjectDigest = COALESCE(excluded.subjectDigest, erasure.subjectDigest), readmittedAt = NULL;
            """, arguments: ["student": studentId, "now": now, "digest": digest])
        // Events: undelivered ones go (no webhook carries them any more); delivered ones keep
        // only what they were, not what they said.
        try db.execute(sql: "DELETE FROM event WHERE studentId = :student AND deliveredAt IS NULL", arguments: arguments)
        let events = db.changesCount
        for row in try Row.fetchAll(db, sql: "SELECT id, type, occurredAt FROM event WHERE studentId = :student", arguments: arguments) {
            let stripped = try JSONSerialization.data(withJSONObject: [
                "id": row["id"] as String, "type": row["type"] as String, "erased": true,
            ], options: [.sortedKeys])
            try db.execute(sql: "UPDATE event SET payload = ? WHERE id = ?", arguments: [stripped, row["id"] as String])
        }
        _ = try recordAudit(db, AuditDraft(action: "student_erased", studentId: studentId,
                                           after: ["recordings": .int(recordings), "replies": .int(replies), "files": .int(files.count)]),
                            actor: actor, reason: reason, at: now)
        return .success(Erasure(studentId: studentId, files: files, recordings: recordings, replies: replies, events: events))
    }

    /// Every artifact of the submissions `submissions` (SQL selecting their ids) names, and of the
    /// replies, comments and marks on them — each table's columns as the sweeper knows them
    /// (`artifactColumns`) — with the MP4/CAF variants of the Ogg files.
    static func audioFiles(_ db: SQLSession, ofSubmissions submissions: String, _ arguments: SQLArguments = []) throws -> [String] {
        var files: [String] = []
        for (table, _, columns) in artifactColumns {
            let key = table == "submission" ? "id" : "submissionId"
            for row in try Row.fetchAll(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table) WHERE \(key) IN (\(submissions))",
                                        arguments: arguments) {
                for index in 0..<row.count {
                    guard let path = row[index] as String? else { continue }
                    files.append(path)
                    if !path.hasPrefix("originals/") { files += ArtifactStore.variants(ofAudio: path) }
                }
            }
        }
        return files
    }

    /// The erasure ledger: every student id erased, with when.
    public func erasures() throws -> [String: Date] {
        try engine.read { db in
            guard try db.tableExists("erasure") else { return [:] }
            return Dictionary(try Row.fetchAll(db, sql: "SELECT studentId, erasedAt FROM erasure").map { ($0["studentId"] as String, $0["erasedAt"] as Date) },
                              uniquingKeysWith: { first, _ in first })
        }
    }

    /// Whether the student was erased.
    public func isErased(studentId: String) async throws -> Bool {
        try await engine.read { db in try Self.isErased(db, studentId: studentId) }
    }

    /// Whether the student was erased (and not re-admitted since), inside a transaction.
    static func isErased(_ db: SQLSession, studentId: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM erasure WHERE studentId = ? AND readmittedAt IS NULL)",
                          arguments: [studentId]) ?? false
    }
}
