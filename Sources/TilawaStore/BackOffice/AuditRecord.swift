import Foundation
import GRDB
import TilawaCore

/// One back-office action as the audit log keeps it (DESIGN §11): who, when, why, and what
/// it changed — `before` and `after` as JSON objects of the fields it touched.
public struct AuditRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "audit"

    public var id: Int64?
    public var at: Date
    /// Who did it: an operator's name (`--by`, the invoking Unix user, or the token's operator); `student:ID` for
    /// a student's own consent or erasure request, `erasure request` for the daemon carrying one out.
    public var actor: String
    /// `deadline_extended`, `attempts_granted`, `feedback_moved`, `enrolment_changed`, `cover_started`, `cover_ended`,
    /// `sessions_revoked` (sign-out everywhere), `student_erased`, `student_readmitted`; `consent_given`, `consent_withdrawn`,
    /// `erasure_requested`, `erasure_request_cancelled` (by the student, `student:ID`, or an operator; DESIGN §16).
    public var action: String
    public var studentId: String?
    /// The second student of a moved reply (the one it was taken from).
    public var otherStudentId: String?
    public var coachId: String?
    /// The coach a change was away from, or the one covered.
    public var otherCoachId: String?
    public var reason: String
    /// JSON objects (text) of the fields before and after.
    public var before: String?
    public var after: String?

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A page of the audit log, newest first, with the cursor of the next page.
public struct AuditPage: Sendable {
    /// One line of the log: a back-office action, or a placement or enrolment change the
    /// programme recorded before (roster import, placement), which has no reason.
    public struct Entry: Sendable, Equatable {
        /// `audit:12` or `enrolment_change:34`.
        public var id: String
        public var at: Date
        public var actor: String
        public var action: String
        public var studentId: String?
        public var otherStudentId: String?
        public var coachId: String?
        public var otherCoachId: String?
        public var reason: String?
        public var before: String?
        public var after: String?

        public init(id: String, at: Date, actor: String, action: String, studentId: String?, otherStudentId: String?, coachId: String?,
                    otherCoachId: String?, reason: String?, before: String?, after: String?) {
            self.id = id
            self.at = at
            self.actor = actor
            self.action = action
            self.studentId = studentId
            self.otherStudentId = otherStudentId
            self.coachId = coachId
            self.otherCoachId = otherCoachId
            self.reason = reason
            self.before = before
            self.after = after
        }
    }

    public var entries: [Entry]
    /// Where the next (older) page starts; nil on the last page.
    public var next: AuditCursor?
}

/// A position in the audit log: entries strictly older than it (by instant as stored, then
/// source, then row), so a page never skips or repeats an entry made in the same millisecond.
public struct AuditCursor: Sendable, Equatable {
    /// The instant as the database stores it (compared as stored: no rounding on the way).
    public var at: String
    public var source: Int
    public var row: Int64

    public init(at: String, source: Int, row: Int64) {
        self.at = at
        self.source = source
        self.row = row
    }

    /// An opaque token for a URL (base64url of `<at>|<source>|<row>`). Not secret: the log is
    /// for operations only.
    public var token: String {
        Data("\(at)|\(source)|\(row)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The cursor of `token`, or nil for anything `token` did not make.
    public init?(token: String) {
        guard (1...128).contains(token.utf8.count),
              token.utf8.allSatisfy({ $0 < 128 && (Character(UnicodeScalar($0)).isLetter || Character(UnicodeScalar($0)).isNumber || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")) })
        else { return nil }
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= 32, parts[0].allSatisfy({ $0.isASCII && ($0.isNumber || "-: .".contains($0)) }),
              let source = Int(parts[1]), (0...1).contains(source), let row = Int64(parts[2]) else { return nil }
        self.init(at: String(parts[0]), source: source, row: row)
    }
}

/// Which audit entries to list.
public struct AuditFilter: Sendable {
    public var studentId: String?
    public var coachId: String?
    /// Entries at or after this instant.
    public var since: Date?
    /// Entries strictly before this instant.
    public var before: Date?

    public init(studentId: String? = nil, coachId: String? = nil, since: Date? = nil, before: Date? = nil) {
        self.studentId = studentId
        self.coachId = coachId
        self.since = since
        self.before = before
    }
}
