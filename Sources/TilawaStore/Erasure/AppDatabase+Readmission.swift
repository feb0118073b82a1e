import Crypto
import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// A new erased id for what was left of `erasedId`: `ID-erased-N`, the first N no student
    /// has, a student id like any other (a ledger file from `tilawa erase --list` names it); for
    /// an id too long to take the suffix, `erased-` and a digest of the id instead.
    static func formerRecordsId(_ db: SQLSession, of erasedId: String) throws -> String {
        let stem = erasedId.utf8.count + 12 <= Identifier.maximumLength
            ? erasedId + "-erased"
            : "erased-" + SHA256.hash(data: Data(erasedId.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        var number = 1
        while try StudentRecord.exists(db, key: "\(stem)-\(number)") { number += 1 }
        return "\(stem)-\(number)"
    }

    /// Re-admits an erased student as a new one (`tilawa roster import --allow-erased ID`), in
    /// the import's transaction, with an audit row `student_readmitted`.
    ///
    /// When the row brings back the erased id itself, what was left of the old student (ids,
    /// states, instants: their enrolments, recordings, refusals, comments, marks, events and
    /// grants) moves to a new erased id, `ID-erased-N`, returned: the student starts with no
    /// history (their row is made anew from the roster's, preferences and all), their rolling
    /// week counts nothing of the old one, and every count that read the old rows still does.
    /// The ledger keeps `ID` (marked re-admitted) as well as `ID-erased-N`: a restore of a
    /// backup older than the erasure still erases the old student, and one made after the
    /// re-admission leaves the new one alone (its own ledger says so).
    ///
    /// When the row has another id and carries the erased student's subject, only the ledger's
    /// digest of that subject is released: the erased records stay where they are.
    static func readmit(_ db: SQLSession, erasedId: String, as studentId: String, now: Date) throws -> String? {
        var former: String?
        if erasedId == studentId {
            let erasedAt = try Date.fetchOne(db, sql: "SELECT erasedAt FROM erasure WHERE studentId = ?", arguments: [erasedId]) ?? now
            let tombstone = try Self.formerRecordsId(db, of: erasedId)
            var kept = StudentRecord(id: tombstone, name: "")
            kept.erasedAt = erasedAt
            try kept.insert(db)
            for table in ["enrolment", "submission", "rejection", "comment", "event", "resumableUpload", "annotation", "attemptGrant"] {
                try db.execute(sql: "UPDATE \(table) SET studentId = ? WHERE studentId = ?", arguments: [tombstone, erasedId])
            }
            try db.execute(sql: """
                DELETE FROM eventReadCursor WHERE studentId = :student;
                DELETE FROM idempotencyKey WHERE owner = :student;
                INSERT INTO erasure (studentId, erasedAt) VALUES (:tombstone, :erasedAt);
                DELETE FROM student WHERE id = :student;
                """, arguments: ["student": erasedId, "tombstone": tombstone, "erasedAt": erasedAt])
            former = tombstone
        }
        try db.execute(sql: "UPDATE erasure SET subjectDigest = NULL, readmittedAt = CASE WHEN studentId = :student THEN :now ELSE readmittedAt END WHERE studentId = :erased",
                       arguments: ["erased": erasedId, "student": studentId, "now": now])
        var after: [String: MessageValue] = ["erased_id": .text(erasedId)]
        if let former { after["former_records"] = .text(former) }
        _ = try recordAudit(db, AuditDraft(action: "student_readmitted", studentId: studentId, after: after),
                            actor: "roster", reason: "re-admitted by roster import --allow-erased \(erasedId)", at: now)
        return former
    }
}


/// The erasure ledger as a roster import reads it: the ids erased and not re-admitted, and the
/// digests of their subjects.
struct ErasureLedger {
    private var ids: Set<String> = []
    private var subjects: [String: String] = [:]

    init(_ db: SQLSession) throws {
        for row in try Row.fetchAll(db, sql: "SELECT studentId, subjectDigest FROM erasure WHERE readmittedAt IS NULL") {
            let id: String = row["studentId"]
            ids.insert(id)
            if let digest = row["subjectDigest"] as String? { subjects[digest] = id }
        }
    }

    /// The erased ids a row matches: its own id, and the erased student whose subject it carries.
    func matches(id: String, subject: String?) -> [String] {
        var found = ids.contains(id) ? [id] : []
        if let subject, let erased = subjects[AppDatabase.subjectDigest(subject)], erased != id { found.append(erased) }
        return found
    }

    /// An id re-admitted in this import no longer matches later rows.
    mutating func forget(_ id: String) {
        ids.remove(id)
        subjects = subjects.filter { $0.value != id }
    }
}
