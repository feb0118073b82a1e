import Foundation
import GRDB

// The writes of records through a session: GRDB's own on SQLite, SQL built from the record's
// columns and the table's primary key otherwise.

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

/// An identifier as PostgreSQL folds unquoted ones (lower case), quoted so that a column named
/// like a keyword (`offset`) is still a column.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.lowercased() + "\""
}
