import GRDB

/// One transaction on an engine other than SQLite (the PostgreSQL engine implements it in
/// `TilawaPostgres`): what `SQLSession` asks of it. SQLite sessions go to GRDB directly.
///
/// The store's SQL is written once, in the subset both engines mean the same way: `?` and
/// `:name` parameters, unquoted identifiers, `ON CONFLICT … DO …`, `COALESCE`. The backend
/// translates parameters to its own syntax; values are text, 64-bit integers, doubles and
/// bytes on both sides, instants being GRDB's UTC text, so ids, cursors and instants read
/// the same from either engine.
public protocol SQLBackend: AnyObject {
    /// Runs a statement and returns the number of rows it inserted, updated or deleted.
    func execute(sql: String, arguments: SQLArguments) throws -> Int
    /// The rows a query returns. Rows are read by column name (GRDB's lookup ignores case).
    func fetchRows(sql: String, arguments: SQLArguments) throws -> [Row]
    /// The first column of every row a query returns, in order.
    func fetchFirstColumn(sql: String, arguments: SQLArguments) throws -> [DatabaseValue]
    /// The columns of `table`'s primary key, in key order.
    func primaryKey(of table: String) throws -> [String]
    /// Whether `table` exists.
    func tableExists(_ table: String) throws -> Bool
    /// Waits for `lock`, which is held until the transaction ends.
    func acquire(_ lock: StoreLock) throws
    /// SQL for the text member `key` of the JSON document `json`, an SQL expression of bytes
    /// (how the event payloads are stored).
    func jsonText(_ json: String, member key: String) -> String
    /// SQL for a JSON object of these members (SQL expressions), as text.
    func jsonObject(_ members: KeyValuePairs<String, String>) -> String
}

/// A lock a transaction waits for before it reads what it will decide on.
///
/// SQLite needs none of them: a write transaction there already excludes every other
/// writer. On PostgreSQL, where writers run side by side, they make the operations that
/// check a rule and then write (an admission, a per-recipient event number) one at a time
/// per student or per recipient, across every node.
public enum StoreLock: Sendable, Hashable {
    /// Everything that decides on a student's recordings and attempts.
    case student(String)
    /// The numbering of one recipient's notifications.
    case recipient(String)
    /// One process-wide duty (the drop-folder watcher, a sweep).
    case duty(String)
    /// A limit counted over many rows (`staging`: the resumable uploads' byte budget and open
    /// uploads per student; `comments:student:ID`: one author's comments per minute): exact
    /// however many requests race, and on PostgreSQL they wait their turn rather than fail
    /// each other's snapshots as SERIALIZABLE writes reading the same rows would.
    case quota(String)
}
