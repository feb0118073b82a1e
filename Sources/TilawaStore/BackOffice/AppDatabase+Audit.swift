import Foundation
import GRDB
import TilawaCore

extension AppDatabase {
    /// The audit log, newest first (DESIGN §11 `GET /v1/audit`): every back-office action, and
    /// the placements and enrolment changes the programme recorded itself (roster imports,
    /// placements, graduations — `actor` says who: `roster`, `ops`, `coach:C01`), which carry no
    /// reason. A student's entries include a reply moved away from them; a coach's, the
    /// actions that named them either way (a change to or from them, a cover of or by them).
    public func audit(_ filter: AuditFilter, after cursor: AuditCursor?, limit: Int) async throws -> AuditPage {
        try await engine.read { db in try Self.auditPage(db, filter, after: cursor, limit: limit) }
    }

    /// `audit` for the command line.
    public func auditNow(_ filter: AuditFilter, after cursor: AuditCursor?, limit: Int) throws -> AuditPage {
        try engine.read { db in try Self.auditPage(db, filter, after: cursor, limit: limit) }
    }

    static func auditPage(_ db: SQLSession, _ filter: AuditFilter, after cursor: AuditCursor?, limit: Int) throws -> AuditPage {
        var conditions: [String] = []
        var arguments: SQLArguments = []
        if let student = filter.studentId {
            conditions.append("(studentId = ? OR otherStudentId = ?)")
            arguments += [student, student]
        }
        if let coach = filter.coachId {
            conditions.append("(coachId = ? OR otherCoachId = ?)")
            arguments += [coach, coach]
        }
        if let since = filter.since {
            conditions.append("at >= ?")
            arguments += [since]
        }
        if let before = filter.before {
            conditions.append("at < ?")
            arguments += [before]
        }
        if let cursor {
            conditions.append("(at, source, row) < (?, ?, ?)")
            arguments += [cursor.at, cursor.source, cursor.row]
        }
        let page = max(1, min(limit, 200))
        arguments += [page + 1]
        let rows = try Row.fetchAll(db, sql: """
            SELECT * FROM (
                SELECT at, 0 AS source, id AS row, actor, action, studentId, otherStudentId, coachId, otherCoachId,
                       reason, before, after FROM audit
                UNION ALL
                SELECT enrolmentChange.changedAt, 1, enrolmentChange.id, enrolmentChange.changedBy, enrolmentChange.change,
                       enrolment.studentId, NULL, enrolmentChange.coachId, NULL, NULL, NULL,
                       \(db.jsonObject(["semester_id": "enrolment.semesterId", "level_id": "enrolmentChange.levelId",
                                         "coach_id": "enrolmentChange.coachId"]))
                FROM enrolmentChange JOIN enrolment ON enrolment.id = enrolmentChange.enrolmentId
                WHERE enrolmentChange.auditId IS NULL
            ) AS entry
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY at DESC, source DESC, row DESC LIMIT ?
            """, arguments: arguments)
        let entries = rows.prefix(page).map { row in
            AuditPage.Entry(
                id: "\((row["source"] as Int) == 0 ? "audit" : "enrolment_change"):\(row["row"] as Int64)",
                at: row["at"], actor: row["actor"], action: row["action"], studentId: row["studentId"],
                otherStudentId: row["otherStudentId"], coachId: row["coachId"], otherCoachId: row["otherCoachId"],
                reason: row["reason"], before: row["before"], after: row["after"])
        }
        let next = rows.count > page ? rows[page - 1] : nil
        return AuditPage(entries: Array(entries), next: next.map { AuditCursor(at: $0["at"], source: $0["source"], row: $0["row"]) })
    }

    /// Inserts an audit row (inside the action's transaction).
    static func recordAudit(_ db: SQLSession, _ entry: AuditDraft, actor: String, reason: String, at: Date) throws -> AuditRecord {
        var record = AuditRecord(
            id: nil, at: at, actor: actor, action: entry.action, studentId: entry.studentId, otherStudentId: entry.otherStudentId,
            coachId: entry.coachId, otherCoachId: entry.otherCoachId, reason: reason,
            before: try entry.before.map(Self.auditJSON), after: try entry.after.map(Self.auditJSON))
        try record.insert(db)
        return record
    }

    /// A JSON object with sorted keys: the same change always reads the same.
    static func auditJSON(_ fields: [String: MessageValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(fields), as: UTF8.self)
    }
}

/// What one back-office action changed, before it becomes an audit row.
struct AuditDraft {
    var action: String
    var studentId: String? = nil
    var otherStudentId: String? = nil
    var coachId: String? = nil
    var otherCoachId: String? = nil
    var before: [String: MessageValue]? = nil
    var after: [String: MessageValue]? = nil
    /// Enrolment changes written by the action, listed once in the log (from the audit row).
    var enrolmentChanges: [Int64] = []
}
