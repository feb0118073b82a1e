import Foundation
import GRDB

// The reads of values, rows and records through a session: GRDB's own on SQLite, SQL run on the
// backend otherwise.

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
