import Foundation
import GRDB

/// One transaction of the store, on either engine. `AppDatabase`'s operations read and
/// write only through it, so a behaviour cannot exist on one engine alone.
///
/// Its methods mirror GRDB's names (`execute(sql:arguments:)`, `Record.fetchOne(db, key:)`,
/// `record.insert(db)`), and on SQLite they *are* GRDB's: the session adds nothing there.
public struct SQLSession {
    enum Connection {
        case sqlite(Database)
        case backend(any SQLBackend)
    }

    let connection: Connection
    /// Rows changed by the last `execute` (GRDB's `changesCount` on SQLite).
    private let changes: ChangeCounter

    public init(_ db: Database) {
        connection = .sqlite(db)
        changes = ChangeCounter()
    }

    public init(backend: any SQLBackend) {
        connection = .backend(backend)
        changes = ChangeCounter()
    }

    /// What ends a SELECT that claims rows of a queue in `StoreEngine.claimWrite`: rows another
    /// transaction holds are passed over (PostgreSQL); nothing on SQLite, where the transaction
    /// already excludes every other writer.
    public var skipLocked: String { sqlite == nil ? " FOR UPDATE SKIP LOCKED" : "" }

    /// The SQLite connection, for what exists only there (backups, the first release's fixture).
    public var sqlite: Database? {
        if case let .sqlite(db) = connection { return db }
        return nil
    }

    public func execute(sql: String, arguments: SQLArguments = []) throws {
        switch connection {
        case let .sqlite(db): try db.execute(sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend): changes.count = try backend.execute(sql: sql, arguments: arguments)
        }
    }

    /// The number of rows the last `execute` inserted, updated or deleted.
    public var changesCount: Int {
        switch connection {
        case let .sqlite(db): db.changesCount
        case .backend: changes.count
        }
    }

    public func tableExists(_ table: String) throws -> Bool {
        switch connection {
        case let .sqlite(db): try db.tableExists(table)
        case let .backend(backend): try backend.tableExists(table)
        }
    }

    /// Waits for `lock` until the transaction ends (nothing to wait for on SQLite, whose write
    /// transactions already exclude each other).
    public func acquire(_ lock: StoreLock) throws {
        if case let .backend(backend) = connection { try backend.acquire(lock) }
    }

    /// SQL for the text member `key` of the JSON document `json`, an SQL expression of bytes
    /// (how the event payloads are stored).
    public func jsonText(_ json: String, member key: String) -> String {
        switch connection {
        case .sqlite: "json_extract(CAST(\(json) AS TEXT), '$.\(key)')"
        case let .backend(backend): backend.jsonText(json, member: key)
        }
    }

    /// SQL for a JSON object of these members (SQL expressions), as text.
    public func jsonObject(_ members: KeyValuePairs<String, String>) -> String {
        switch connection {
        case .sqlite: "json_object(" + members.map { "'\($0.key)', \($0.value)" }.joined(separator: ", ") + ")"
        case let .backend(backend): backend.jsonObject(members)
        }
    }

    func rows(sql: String, arguments: SQLArguments) throws -> [Row] {
        switch connection {
        case let .sqlite(db): try Row.fetchAll(db, sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend): try backend.fetchRows(sql: sql, arguments: arguments)
        }
    }

    func backend() -> (any SQLBackend)? {
        if case let .backend(backend) = connection { return backend }
        return nil
    }
}

/// The session's last change count; a class so that the session stays a value.
private final class ChangeCounter {
    var count = 0
}

// MARK: - Values

extension DatabaseValueConvertible {
    public static func fetchOne(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> Self? {
        switch session.connection {
        case let .sqlite(db): return try fetchOne(db, sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend):
            // GRDB's rule: no row and a NULL both give nil.
            guard let first = try backend.fetchFirstColumn(sql: sql, arguments: arguments).first, !first.isNull else { return nil }
            return try decode(first)
        }
    }

    public static func fetchAll(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> [Self] {
        switch session.connection {
        case let .sqlite(db): return try fetchAll(db, sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend): return try backend.fetchFirstColumn(sql: sql, arguments: arguments).map(decode)
        }
    }

    /// GRDB's rule for a non-optional value: NULL or a value of another type is an error.
    private static func decode(_ value: DatabaseValue) throws -> Self {
        guard let decoded = fromDatabaseValue(value) else {
            throw StoreError.internalInconsistency("a \(Self.self) column held \(value)")
        }
        return decoded
    }
}

extension DatabaseValueConvertible where Self: Hashable {
    public static func fetchSet(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> Set<Self> {
        Set(try fetchAll(session, sql: sql, arguments: arguments))
    }
}

extension Optional where Wrapped: DatabaseValueConvertible {
    /// Every first-column value, NULL as nil.
    public static func fetchAll(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> [Wrapped?] {
        switch session.connection {
        case let .sqlite(db): return try fetchAll(db, sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend):
            return try backend.fetchFirstColumn(sql: sql, arguments: arguments).map { value in
                value.isNull ? nil : Wrapped.fromDatabaseValue(value)
            }
        }
    }
}

// MARK: - Rows

extension Row {
    public static func fetchOne(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> Row? {
        switch session.connection {
        case let .sqlite(db): try fetchOne(db, sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend): try backend.fetchRows(sql: sql, arguments: arguments).first
        }
    }

    public static func fetchAll(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> [Row] {
        try session.rows(sql: sql, arguments: arguments)
    }
}

// MARK: - Records

extension FetchableRecord {
    public static func fetchOne(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> Self? {
        switch session.connection {
        case let .sqlite(db): return try fetchOne(db, sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend): return try backend.fetchRows(sql: sql, arguments: arguments).first.map(Self.init(row:))
        }
    }

    public static func fetchAll(_ session: SQLSession, sql: String, arguments: SQLArguments = []) throws -> [Self] {
        switch session.connection {
        case let .sqlite(db): return try fetchAll(db, sql: sql, arguments: arguments.statementArguments)
        case let .backend(backend): return try backend.fetchRows(sql: sql, arguments: arguments).map(Self.init(row:))
        }
    }
}

extension FetchableRecord where Self: TableRecord {
    /// The record whose single-column primary key is `key`.
    public static func fetchOne(_ session: SQLSession, key: some DatabaseValueConvertible) throws -> Self? {
        switch session.connection {
        case let .sqlite(db): return try fetchOne(db, key: key)
        case let .backend(backend):
            let columns = try backend.primaryKey(of: databaseTableName)
            guard columns.count == 1 else { throw StoreError.internalInconsistency("\(databaseTableName) has a composite key") }
            return try fetchOne(session, sql: "SELECT * FROM \(databaseTableName) WHERE \(columns[0]) = ?", arguments: [key])
        }
    }

    /// The record whose (composite) primary key has the values of `key`.
    public static func fetchOne(_ session: SQLSession, key: [String: (any DatabaseValueConvertible)?]) throws -> Self? {
        switch session.connection {
        case let .sqlite(db): return try fetchOne(db, key: key)
        case .backend:
            let names = key.keys.sorted()
            let condition = names.map { "\($0) = ?" }.joined(separator: " AND ")
            return try fetchOne(session, sql: "SELECT * FROM \(databaseTableName) WHERE \(condition)",
                                arguments: SQLArguments(names.map { key[$0] ?? nil }))
        }
    }

    public static func exists(_ session: SQLSession, key: some DatabaseValueConvertible) throws -> Bool {
        switch session.connection {
        case let .sqlite(db): return try exists(db, key: key)
        case .backend: return try fetchOne(session, key: key) != nil
        }
    }
}

extension MutablePersistableRecord where Self: FetchableRecord {
    /// Inserts the record; an auto-incremented key is read back into it, as GRDB does.
    public mutating func insert(_ session: SQLSession) throws {
        try insertRecord(session)
    }

    /// `insert`, under a name the non-mutating overloads can call without calling themselves.
    mutating func insertRecord(_ session: SQLSession) throws {
        switch session.connection {
        case let .sqlite(db): try insert(db)
        case let .backend(backend):
            let keyColumns = Set(try backend.primaryKey(of: Self.databaseTableName))
            // A nil key column is the engine's to number (`GENERATED … AS IDENTITY`).
            let values = try databaseDictionary.filter { !(keyColumns.contains($0.key) && $0.value.isNull) }.sorted { $0.key < $1.key }
            let sql = "INSERT INTO \(Self.databaseTableName) (\(values.map { quoted($0.key) }.joined(separator: ", "))) "
                + "VALUES (\(values.map { _ in "?" }.joined(separator: ", "))) RETURNING *"
            guard let row = try backend.fetchRows(sql: sql, arguments: SQLArguments(values.map(\.value))).first else {
                throw StoreError.internalInconsistency("an insert into \(Self.databaseTableName) returned no row")
            }
            self = try Self(row: row)
        }
    }

    /// Updates every column of the record's row; `RecordError.recordNotFound` when there is none.
    public func update(_ session: SQLSession) throws {
        switch session.connection {
        case let .sqlite(db): try update(db)
        case let .backend(backend):
            guard try updateRow(backend) else {
                throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: try primaryKeyValues(backend))
            }
        }
    }

    /// Updates the record's row, or inserts it when there is none.
    public mutating func save(_ session: SQLSession) throws {
        switch session.connection {
        case let .sqlite(db): try save(db)
        case let .backend(backend):
            if try !updateRow(backend) { try insertRecord(session) }
        }
    }

    /// Deletes the record's row; whether there was one.
    @discardableResult
    public func delete(_ session: SQLSession) throws -> Bool {
        switch session.connection {
        case let .sqlite(db): return try delete(db)
        case let .backend(backend):
            let key = try primaryKeyValues(backend)
            return try backend.execute(sql: "DELETE FROM \(Self.databaseTableName) WHERE " + key.keys.sorted().map { "\(quoted($0)) = ?" }.joined(separator: " AND "),
                                       arguments: SQLArguments(key.keys.sorted().map { key[$0] ?? .null })) > 0
        }
    }

    private func primaryKeyValues(_ backend: any SQLBackend) throws -> [String: DatabaseValue] {
        let all = try databaseDictionary
        return Dictionary(uniqueKeysWithValues: try backend.primaryKey(of: Self.databaseTableName).map { ($0, all[$0] ?? .null) })
    }

    func updateRow(_ backend: any SQLBackend) throws -> Bool {
        let key = try primaryKeyValues(backend)
        let values = try databaseDictionary.filter { key[$0.key] == nil }.sorted { $0.key < $1.key }
        let keyNames = key.keys.sorted()
        let sql = "UPDATE \(Self.databaseTableName) SET " + values.map { "\(quoted($0.key)) = ?" }.joined(separator: ", ")
            + " WHERE " + keyNames.map { "\(quoted($0)) = ?" }.joined(separator: " AND ")
        return try backend.execute(sql: sql, arguments: SQLArguments(values.map(\.value) + keyNames.map { key[$0] ?? .null })) > 0
    }
}

extension PersistableRecord where Self: FetchableRecord {
    /// Inserts the record (its key is its own).
    public func insert(_ session: SQLSession) throws {
        var copy = self
        try copy.insertRecord(session)
    }

    /// Updates the record's row, or inserts it when there is none.
    public func save(_ session: SQLSession) throws {
        switch session.connection {
        case let .sqlite(db): try save(db)
        case let .backend(backend):
            if try !updateRow(backend) { try insert(session) }
        }
    }

    /// Inserts the record, or replaces every other column of the row with its key.
    public func upsert(_ session: SQLSession) throws {
        switch session.connection {
        case let .sqlite(db): try upsert(db)
        case let .backend(backend):
            let keys = try backend.primaryKey(of: Self.databaseTableName)
            let values = try databaseDictionary.sorted { $0.key < $1.key }
            let others = values.map(\.key).filter { !keys.contains($0) }
            let assignments = others.isEmpty ? "NOTHING" : "UPDATE SET " + others.map { "\(quoted($0)) = excluded.\(quoted($0))" }.joined(separator: ", ")
            _ = try backend.execute(
                sql: "INSERT INTO \(Self.databaseTableName) (\(values.map { quoted($0.key) }.joined(separator: ", "))) "
                    + "VALUES (\(values.map { _ in "?" }.joined(separator: ", "))) ON CONFLICT (\(keys.map(quoted).joined(separator: ", "))) DO \(assignments)",
                arguments: SQLArguments(values.map(\.value)))
        }
    }

}

// MARK: - Records by condition

extension FetchableRecord where Self: TableRecord {
    /// The records of the table that meet `condition` (SQL over its columns, `?` or `:name`
    /// parameters), ordered by `orderBy` or else by primary key, at most `limit` of them.
    public static func fetchAll(
        _ session: SQLSession, where condition: String? = nil, _ arguments: SQLArguments = [],
        orderBy: String? = nil, limit: Int? = nil
    ) throws -> [Self] {
        try fetchAll(session, sql: try selection(session, condition, orderBy: orderBy, limit: limit), arguments: arguments)
    }

    /// The first record `fetchAll` would return.
    public static func fetchOne(_ session: SQLSession, where condition: String, _ arguments: SQLArguments = [], orderBy: String? = nil) throws -> Self? {
        try fetchOne(session, sql: try selection(session, condition, orderBy: orderBy, limit: 1), arguments: arguments)
    }

    /// How many records meet `condition`.
    public static func fetchCount(_ session: SQLSession, where condition: String? = nil, _ arguments: SQLArguments = []) throws -> Int {
        try Int.fetchOne(session, sql: "SELECT COUNT(*) FROM \(databaseTableName)" + (condition.map { " WHERE \($0)" } ?? ""),
                         arguments: arguments) ?? 0
    }

    private static func selection(_ session: SQLSession, _ condition: String?, orderBy: String?, limit: Int?) throws -> String {
        let order = try orderBy ?? {
            switch session.connection {
            case let .sqlite(db): try db.primaryKey(databaseTableName).columns.joined(separator: ", ")
            case let .backend(backend): try backend.primaryKey(of: databaseTableName).joined(separator: ", ")
            }
        }()
        return "SELECT * FROM \(databaseTableName)" + (condition.map { " WHERE \($0)" } ?? "") + " ORDER BY \(order)"
            + (limit.map { " LIMIT \($0)" } ?? "")
    }
}

extension SQLSession {
    /// Calls `body` with each row of a query, one at a time on SQLite (a cursor: no copies of
    /// tens of thousands of rows). Read columns by name: other engines' rows have no order.
    public func forEachRow(sql: String, arguments: SQLArguments = [], _ body: (Row) throws -> Void) throws {
        switch connection {
        case let .sqlite(db): try Row.fetchCursor(db, sql: sql, arguments: arguments.statementArguments).forEach(body)
        case let .backend(backend): try backend.fetchRows(sql: sql, arguments: arguments).forEach(body)
        }
    }
}

/// An identifier as PostgreSQL folds unquoted ones (lower case), quoted so that a column named
/// like a keyword (`offset`) is still a column.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.lowercased() + "\""
}
