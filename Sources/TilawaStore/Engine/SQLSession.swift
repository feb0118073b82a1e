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
