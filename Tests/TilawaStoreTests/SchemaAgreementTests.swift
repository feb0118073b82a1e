import Foundation
import GRDB
import Testing
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// The schema exists twice — SQLite's GRDB migrations and PostgreSQL's `PostgresSchema` — and
/// this says whether they agree: both are built from scratch and compared table by table,
/// column by column (type by meaning, nullability, default), with their primary keys,
/// indexes (columns, unique, partial) and foreign keys. A difference fails naming it.
///
/// The few differences that are meant are listed in `intended`, each with its reason.
@Suite("The schema once: SQLite's migrations and PostgreSQL's schema agree", .enabled(if: PostgresTestServer.isRequested))
struct SchemaAgreementTests {
    /// A column by meaning: `integer` (SQLite INTEGER or BOOLEAN, PostgreSQL bigint), `text`
    /// (TEXT, DATETIME, DATE; text), `real` (DOUBLE; double precision), `blob` (BLOB; bytea).
    struct Column: Hashable, CustomStringConvertible {
        var type: String
        var notNull: Bool
        var defaultValue: String?

        var description: String { "\(type)\(notNull ? " NOT NULL" : "")\(defaultValue.map { " DEFAULT \($0)" } ?? "")" }
    }

    /// An index that is not the primary key's (a UNIQUE constraint's is one).
    struct Index: Hashable, Comparable, CustomStringConvertible {
        var table: String
        var columns: [String]
        var unique: Bool
        var partial: Bool

        var description: String { "\(unique ? "UNIQUE " : "")INDEX ON \(table)(\(columns.joined(separator: ", ")))\(partial ? " WHERE …" : "")" }
        static func < (a: Index, b: Index) -> Bool { a.description < b.description }
    }

    struct ForeignKey: Hashable, Comparable, CustomStringConvertible {
        var table: String
        var columns: [String]
        var references: String
        var referencedColumns: [String]

        var description: String { "\(table)(\(columns.joined(separator: ", "))) REFERENCES \(references)(\(referencedColumns.joined(separator: ", ")))" }
        static func < (a: ForeignKey, b: ForeignKey) -> Bool { a.description < b.description }
    }

    /// One engine's schema, every name in lower case (PostgreSQL folds unquoted names).
    struct Schema {
        var columns: [String: [String: Column]] = [:]
        var primaryKeys: [String: [String]] = [:]
        var indexes: Set<Index> = []
        var foreignKeys: Set<ForeignKey> = []
    }

    /// Differences that are meant, and why.
    static let intended: [String: String] = [
        // SQLite has an implicit rowid on every table; PostgreSQL reads a thread's messages of one
        // instant in write order by a column of its own ("comments: write order").
        "column comment.rowid: only on PostgreSQL": "SQLite's implicit rowid, made explicit",
        "column annotation.rowid: only on PostgreSQL": "the same for marks of one instant, read in the order they were made",
        // Bytes on both: SQLite's column is declared TEXT but the payload is written as a BLOB,
        // which TEXT affinity keeps a BLOB; PostgreSQL's bytea holds the same bytes.
        "column event.payload: SQLite text NOT NULL, PostgreSQL blob NOT NULL": "the JSON's bytes on both",
        // SQLite's column is untyped on purpose: the artifact byte count stays an integer its
        // triggers add to; PostgreSQL keeps text, and its triggers cast.
        "column meta.value: SQLite blob NOT NULL, PostgreSQL text NOT NULL": "untyped in SQLite, text on PostgreSQL",
    ]

    @Test("tables, columns (type by meaning, NOT NULL, default), primary keys, indexes and foreign keys are the same on both engines")
    func agree() async throws {
        let sqliteStore = try TestStore(.sqlite)
        defer { sqliteStore.remove() }
        let postgresStore = try TestStore(.postgres)
        defer { postgresStore.remove() }
        let sqlite = try await Self.sqliteSchema(sqliteStore.database)
        let postgres = try await Self.postgresSchema(postgresStore.database)
        #expect(sqlite.columns.count > 20, "SQLite's schema read: \(sqlite.columns.keys.sorted())")
        let differences = Self.differences(sqlite, postgres).filter { Self.intended[$0] == nil }
        #expect(differences.isEmpty, "the schemas differ:\n\(differences.joined(separator: "\n"))")
    }

    @Test("the comparison finds a difference: an index, a column's type, a NOT NULL, a default and a foreign key changed on one side")
    func findsDifferences() {
        var one = Schema()
        one.columns["t"] = ["a": Column(type: "text", notNull: true, defaultValue: nil), "b": Column(type: "integer", notNull: false, defaultValue: "0")]
        one.primaryKeys["t"] = ["a"]
        one.indexes = [Index(table: "t", columns: ["b"], unique: false, partial: false)]
        one.foreignKeys = [ForeignKey(table: "t", columns: ["b"], references: "u", referencedColumns: ["id"])]
        #expect(Self.differences(one, one).isEmpty)
        var other = one
        other.columns["t"]?["b"] = Column(type: "real", notNull: true, defaultValue: "1")
        other.indexes = [Index(table: "t", columns: ["b"], unique: true, partial: false)]
        other.foreignKeys = []
        let found = Self.differences(one, other)
        #expect(found.contains { $0.hasPrefix("column t.b:") })
        #expect(found.contains { $0.contains("INDEX ON t(b)") && $0.contains("only on SQLite") })
        #expect(found.contains { $0.contains("UNIQUE INDEX ON t(b)") && $0.contains("only on PostgreSQL") })
        #expect(found.contains { $0.contains("REFERENCES u(id)") })
    }

    /// What differs, one line each, sorted.
    static func differences(_ sqlite: Schema, _ postgres: Schema) -> [String] {
        var lines: [String] = []
        for table in Set(sqlite.columns.keys).union(postgres.columns.keys).sorted() {
            guard let left = sqlite.columns[table] else { lines.append("table \(table): only on PostgreSQL"); continue }
            guard let right = postgres.columns[table] else { lines.append("table \(table): only on SQLite"); continue }
            for column in Set(left.keys).union(right.keys).sorted() {
                switch (left[column], right[column]) {
                case let (one?, two?) where one != two:
                    lines.append("column \(table).\(column): SQLite \(one), PostgreSQL \(two)")
                case (nil, _?):
                    lines.append("column \(table).\(column): only on PostgreSQL")
                case (_?, nil):
                    lines.append("column \(table).\(column): only on SQLite")
                default:
                    break
                }
            }
            if sqlite.primaryKeys[table] != postgres.primaryKeys[table] {
                lines.append("primary key of \(table): SQLite \(sqlite.primaryKeys[table] ?? []), PostgreSQL \(postgres.primaryKeys[table] ?? [])")
            }
        }
        let tables = Set(sqlite.columns.keys).intersection(postgres.columns.keys)
        for index in sqlite.indexes.subtracting(postgres.indexes).sorted() where tables.contains(index.table) {
            lines.append("\(index): only on SQLite")
        }
        for index in postgres.indexes.subtracting(sqlite.indexes).sorted() where tables.contains(index.table) {
            lines.append("\(index): only on PostgreSQL")
        }
        for key in sqlite.foreignKeys.subtracting(postgres.foreignKeys).sorted() where tables.contains(key.table) {
            lines.append("FOREIGN KEY \(key): only on SQLite")
        }
        for key in postgres.foreignKeys.subtracting(sqlite.foreignKeys).sorted() where tables.contains(key.table) {
            lines.append("FOREIGN KEY \(key): only on PostgreSQL")
        }
        return lines
    }

    /// A default as both engines would write it: no cast (`'x'::text`), no outer parentheses.
    static func normalisedDefault(_ text: String?) -> String? {
        guard var value = text?.trimmingCharacters(in: .whitespaces), !value.isEmpty, value.uppercased() != "NULL" else { return nil }
        while value.hasPrefix("("), value.hasSuffix(")") { value = String(value.dropFirst().dropLast()) }
        if let cast = value.range(of: #"::[a-z ]+$"#, options: .regularExpression) { value.removeSubrange(cast) }
        return value
    }

    /// SQLite's declared type by meaning (its type affinity, with DATETIME and DATE as text:
    /// GRDB stores instants as text).
    static func sqliteMeaning(_ declared: String) -> String {
        let type = declared.uppercased()
        if type.contains("INT") || type.contains("BOOL") { return "integer" }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") || type.contains("DATE") || type.contains("TIME") { return "text" }
        if type.isEmpty || type.contains("BLOB") { return "blob" }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return "real" }
        return "numeric(\(type))"
    }

    static func postgresMeaning(_ type: String) -> String {
        switch type {
        case "bigint", "integer", "smallint", "boolean": "integer"
        case "text", "character varying", "character": "text"
        case "double precision", "real": "real"
        case "bytea": "blob"
        default: "other(\(type))"
        }
    }

    static func sqliteSchema(_ database: AppDatabase) async throws -> Schema {
        try await database.engine.read { db in
            var schema = Schema()
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                """)
            for table in tables {
                let name = table.lowercased()
                var columns: [String: Column] = [:]
                var primary: [(Int, String)] = []
                for row in try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))") {
                    let column = (row["name"] as String).lowercased()
                    let position: Int = row["pk"]
                    if position > 0 { primary.append((position, column)) }
                    // A primary key's columns hold no NULL on PostgreSQL; nor, in fact, here.
                    columns[column] = Column(type: sqliteMeaning(row["type"] as String? ?? ""), notNull: (row["notnull"] as Int) == 1 || position > 0,
                                             defaultValue: normalisedDefault(row["dflt_value"] as String?))
                }
                schema.columns[name] = columns
                schema.primaryKeys[name] = primary.sorted { $0.0 < $1.0 }.map(\.1)
                for index in try Row.fetchAll(db, sql: "PRAGMA index_list(\(table.quotedDatabaseIdentifier))") where (index["origin"] as String) != "pk" {
                    let indexName: String = index["name"]
                    let columns = try Row.fetchAll(db, sql: "PRAGMA index_info(\(indexName.quotedDatabaseIdentifier))")
                        .sorted { ($0["seqno"] as Int) < ($1["seqno"] as Int) }
                        .map { ($0["name"] as String?)?.lowercased() ?? "<expression>" }
                    schema.indexes.insert(Index(table: name, columns: columns, unique: (index["unique"] as Int) == 1, partial: (index["partial"] as Int) == 1))
                }
                let keys = Dictionary(grouping: try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(table.quotedDatabaseIdentifier))"), by: { $0["id"] as Int })
                for (_, rows) in keys {
                    let ordered = rows.sorted { ($0["seq"] as Int) < ($1["seq"] as Int) }
                    schema.foreignKeys.insert(ForeignKey(table: name, columns: ordered.map { ($0["from"] as String).lowercased() },
                                                         references: (ordered[0]["table"] as String).lowercased(),
                                                         referencedColumns: ordered.map { ($0["to"] as String? ?? "").lowercased() }))
                }
            }
            // A foreign key naming no column refers to the other table's primary key.
            schema.foreignKeys = Set(schema.foreignKeys.map { key in
                var key = key
                if key.referencedColumns.allSatisfy(\.isEmpty) { key.referencedColumns = schema.primaryKeys[key.references] ?? [] }
                return key
            })
            return schema
        }
    }

    static func postgresSchema(_ database: AppDatabase) async throws -> Schema {
        try await database.engine.read { db in
            var schema = Schema()
            for row in try Row.fetchAll(db, sql: """
                SELECT table_name::text AS tbl, column_name::text AS col, data_type::text AS type,
                       CASE WHEN is_nullable = 'NO' THEN 1 ELSE 0 END AS notnull, column_default::text AS dflt
                FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name::text <> 'tilawa_migrations'
                """) {
                let table = (row["tbl"] as String).lowercased()
                schema.columns[table, default: [:]][(row["col"] as String).lowercased()] = Column(
                    type: postgresMeaning(row["type"] as String), notNull: (row["notnull"] as Int) == 1,
                    defaultValue: normalisedDefault(row["dflt"] as String?))
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT t.relname::text AS tbl, ix.indisprimary::int AS pk, ix.indisunique::int AS uniq,
                       CASE WHEN ix.indpred IS NULL THEN 0 ELSE 1 END AS partial,
                       array_to_string(ARRAY(SELECT pg_get_indexdef(ix.indexrelid, k + 1, true)
                                             FROM generate_subscripts(ix.indkey, 1) AS k ORDER BY k), ',') AS cols
                FROM pg_index ix
                JOIN pg_class i ON i.oid = ix.indexrelid
                JOIN pg_class t ON t.oid = ix.indrelid
                JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE n.nspname = current_schema() AND t.relname::text <> 'tilawa_migrations'
                """) {
                let table = (row["tbl"] as String).lowercased()
                let columns = (row["cols"] as String).split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased() }
                if (row["pk"] as Int) == 1 {
                    schema.primaryKeys[table] = columns
                } else {
                    schema.indexes.insert(Index(table: table, columns: columns, unique: (row["uniq"] as Int) == 1, partial: (row["partial"] as Int) == 1))
                }
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT cl.relname::text AS tbl, ref.relname::text AS reftbl,
                       array_to_string(ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(n, o)
                                             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o), ',') AS cols,
                       array_to_string(ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(n, o)
                                             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o), ',') AS refcols
                FROM pg_constraint c
                JOIN pg_class cl ON cl.oid = c.conrelid
                JOIN pg_class ref ON ref.oid = c.confrelid
                JOIN pg_namespace n ON n.oid = cl.relnamespace
                WHERE c.contype = 'f' AND n.nspname = current_schema()
                """) {
                schema.foreignKeys.insert(ForeignKey(table: (row["tbl"] as String).lowercased(),
                                                     columns: (row["cols"] as String).lowercased().split(separator: ",").map(String.init),
                                                     references: (row["reftbl"] as String).lowercased(),
                                                     referencedColumns: (row["refcols"] as String).lowercased().split(separator: ",").map(String.init)))
            }
            return schema
        }
    }
}
