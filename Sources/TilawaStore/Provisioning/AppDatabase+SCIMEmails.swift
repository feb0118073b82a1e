import Foundation
import GRDB

/// A provisioned user's emails as a filter compares them (RFC 7643 §4.1.2, `caseExact` false):
/// one `scimUserEmail` row per email of `scimUser.emails`, its text members in the form
/// `emailKey` gives, so that `emails[type eq "work"].value eq "…"` is a lookup by index on both
/// engines instead of a scan of every user.
extension AppDatabase {
    /// The migration "scim: email lookup, userName free once deleted". Never edited once landed;
    /// `PostgresSchema` has its twin under the same name.
    ///
    /// - `scimUserEmail`: the emails of each `scimUser` row, looked up by `value`; they go with
    ///   their user (an erasure deletes the row, and its emails with it).
    /// - `scimUser_subject` becomes unique among the users that exist (`deletedAt IS NULL`):
    ///   a deleted user no longer exists (RFC 7644 §3.6), so another may take its userName
    ///   while its row keeps what it was.
    static func migrateSCIMEmails(_ db: Database) throws {
        try db.create(table: "scimUserEmail") { t in
            t.column("role", .text).notNull()
            t.column("id", .text).notNull()
            t.column("ordinal", .integer).notNull()
            t.column("value", .text)
            t.column("type", .text)
            t.column("display", .text)
            t.column("isPrimary", .boolean)
            t.primaryKey(["role", "id", "ordinal"])
            t.foreignKey(["role", "id"], references: "scimUser", columns: ["role", "id"], onDelete: .cascade)
        }
        try db.create(index: "scimUserEmail_value", on: "scimUserEmail", columns: ["value"])
        try db.drop(index: "scimUser_subject")
        try db.create(index: "scimUser_subject", on: "scimUser", columns: ["subject"], unique: true, condition: Column("deletedAt") == nil)
        let session = SQLSession(db)
        for row in try Row.fetchAll(db, sql: "SELECT role, id, emails FROM scimUser WHERE emails IS NOT NULL") {
            try saveSCIMEmails(session, role: row["role"], id: row["id"], emails: row["emails"])
        }
    }

    /// Writes the `scimUserEmail` rows of the user (`role`, `id`) from `emails`, the JSON text
    /// its `scimUser` row keeps (in the same transaction, after that row).
    static func saveSCIMEmails(_ db: SQLSession, role: String, id: String, emails: String?) throws {
        try db.execute(sql: "DELETE FROM scimUserEmail WHERE role = ? AND id = ?", arguments: [role, id])
        for (ordinal, email) in storedEmails(emails).enumerated() {
            try db.execute(sql: """
                INSERT INTO scimUserEmail (role, id, ordinal, value, type, display, isPrimary) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [role, id, ordinal, email.value.map(emailKey), email.type.map(emailKey), email.display.map(emailKey),
                                 email.primary])
        }
    }

    /// One email of a stored `emails` text, as the SCIM routes write it (canonical member names).
    struct StoredEmail: Decodable {
        var value: String?
        var type: String?
        var display: String?
        var primary: Bool?
    }

    /// The emails a stored `emails` text holds; none when it holds none (or cannot be read,
    /// as the routes read it).
    static func storedEmails(_ text: String?) -> [StoredEmail] {
        guard let text, let emails = try? JSONDecoder().decode([StoredEmail].self, from: Data(text.utf8)) else { return [] }
        return emails
    }

    /// Text as an email filter compares it: lower case, then Unicode's composed form (NFC) —
    /// the same equality as Swift's `a.lowercased() == b.lowercased()`, which compares
    /// canonically equivalent text as equal, made one of bytes that an index can look up.
    /// Computed here, never by SQL: SQLite's `lower()` and PostgreSQL's on "C" text lower A–Z only.
    static func emailKey(_ text: String) -> String {
        text.lowercased().precomposedStringWithCanonicalMapping
    }

    /// SQL (over `scimUser`'s columns) for "one of the user's emails meets every comparison",
    /// with its arguments: a lookup by `scimUserEmail_value` when a value is compared.
    static func emailCondition(_ comparisons: [SCIMEmailComparison]) -> (sql: String, arguments: SQLArguments) {
        var clauses: [String] = []
        var arguments: SQLArguments = []
        for comparison in comparisons {
            switch comparison {
            case let .value(text):
                clauses.append("e.value = ?")
                arguments += [emailKey(text)]
            case let .type(text):
                clauses.append("e.type = ?")
                arguments += [emailKey(text)]
            case let .display(text):
                clauses.append("e.display = ?")
                arguments += [emailKey(text)]
            case let .primary(flag):
                clauses.append("e.isPrimary = ?")
                arguments += [flag]
            case .unmet:
                clauses.append("1 = 0")
            }
        }
        let condition = clauses.isEmpty ? "1 = 1" : clauses.joined(separator: " AND ")
        return ("(scimUser.role, scimUser.id) IN (SELECT e.role, e.id FROM scimUserEmail e WHERE \(condition))", arguments)
    }
}
