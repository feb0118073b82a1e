import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO
import TilawaStore

/// One transaction on one PostgreSQL connection: the `SQLBackend` the store's sessions run
/// on. Each statement waits for its answer (`EventLoopFuture.wait()`), so a transaction runs
/// on a thread of its own — the engine's pool, or a command's main thread — never on an event
/// loop.
final class PostgresTransaction: SQLBackend {
    let connection: PostgresConnection
    let catalog: PostgresCatalog
    let logger: Logger
    /// How long one statement may go unanswered (nil: as long as it takes, for migrations).
    let answerTimeout: TimeAmount?
    /// Whether the session ended under a statement (`PostgresFault`): nothing of the
    /// transaction was committed unless it happened during COMMIT, and no ROLLBACK can be sent.
    private(set) var sessionEnded = false

    init(connection: PostgresConnection, catalog: PostgresCatalog, logger: Logger, answerTimeout: TimeAmount?) {
        self.connection = connection
        self.catalog = catalog
        self.logger = logger
        self.answerTimeout = answerTimeout
    }

    func execute(sql: String, arguments: SQLArguments) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    func fetchRows(sql: String, arguments: SQLArguments) throws -> [Row] {
        try run(sql, arguments).rows.map { row in
            var values: [String: DatabaseValue] = [:]
            for cell in row { values[cell.columnName] = try Self.databaseValue(cell) }
            return Row(values)
        }
    }

    func fetchFirstColumn(sql: String, arguments: SQLArguments) throws -> [DatabaseValue] {
        try run(sql, arguments).rows.map { row in
            guard let cell = row.first(where: { _ in true }) else { return .null }
            return try Self.databaseValue(cell)
        }
    }

    func primaryKey(of table: String) throws -> [String] {
        try catalog.primaryKey(of: table) { table in
            try fetchFirstColumn(sql: """
                SELECT a.attname::text FROM pg_index i
                JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                WHERE i.indrelid = to_regclass(?) AND i.indisprimary
                ORDER BY array_position(i.indkey, a.attnum)
                """, arguments: [table.lowercased()]).compactMap(String.fromDatabaseValue)
        }
    }

    func tableExists(_ table: String) throws -> Bool {
        try Bool.fromDatabaseValue(fetchFirstColumn(sql: "SELECT to_regclass(?) IS NOT NULL", arguments: [table.lowercased()]).first ?? .null) ?? false
    }

    func acquire(_ lock: StoreLock) throws {
        let (space, key) = Self.lockKey(lock)
        switch lock {
        case .recipient:
            // One transaction may write to every student's queue (a week's unlock notices, an
            // announcement to all): a lock per recipient would hold thousands of locks at once,
            // past PostgreSQL's shared lock table (max_locks_per_transaction × connections,
            // 6,400 by default: "out of shared memory"). Recipients share 1,024 buckets instead;
            // two in one bucket only wait for each other.
            _ = try run("SELECT pg_advisory_xact_lock(\(space), hashtext(?) & \(Self.recipientBuckets - 1))", [key])
        case .student, .duty, .quota:
            _ = try run("SELECT pg_advisory_xact_lock(\(space), hashtext(?))", [key])
        }
    }

    /// How many locks the recipients' queues share (a power of two).
    static let recipientBuckets = 1_024

    func jsonText(_ json: String, member key: String) -> String {
        "(CAST(convert_from(\(json), 'UTF8') AS json) ->> '\(key)')"
    }

    func jsonObject(_ members: KeyValuePairs<String, String>) -> String {
        "CAST(json_build_object(" + members.map { "'\($0.key)', \($0.value)" }.joined(separator: ", ") + ") AS text)"
    }

    /// The two keys of `pg_advisory_xact_lock(int, int)`: a space of Tilawa's own per kind of
    /// lock, so that an operator's or another program's advisory locks never wait on ours.
    static func lockKey(_ lock: StoreLock) -> (space: Int32, key: String) {
        switch lock {
        case let .student(id): (0x5449_4C01, id)
        case let .recipient(id): (0x5449_4C02, id)
        case let .duty(name): (0x5449_4C03, name)
        case let .quota(name): (0x5449_4C04, name)
        }
    }

    /// Runs every statement of `sql`; the last one's result.
    @discardableResult
    func run(_ sql: String, _ arguments: SQLArguments) throws -> PostgresQueryResult {
        var result: PostgresQueryResult?
        for statement in try PostgresSQL.statements(sql, arguments) {
            var binds = PostgresBindings(capacity: statement.values.count)
            for value in statement.values { Self.bind(value, into: &binds) }
            // A closed connection would never answer (see `answer(to:)`).
            guard !connection.isClosed else {
                sessionEnded = true
                throw StoreError.unavailable("the connection to PostgreSQL closed before the statement was sent")
            }
            do {
                result = try answer(to: PostgresQuery(unsafeSQL: statement.sql, binds: binds))
            } catch let error as PSQLError where PostgresFault.isUnavailable(error) {
                sessionEnded = true
                throw PostgresFault.unavailable(error, during: "a statement")
            } catch let error as PSQLError {
                throw PostgresStatementError(error, sql: statement.sql)
            }
        }
        guard let result else { throw PostgresSQL.TranslationError(description: "no statement in: \(sql)") }
        return result
    }

    /// The answer to one statement, or `StoreError.unavailable` once it cannot come.
    ///
    /// postgres-nio (1.33) writes a statement to its channel without a promise for the write:
    /// on a connection that has already closed (the server ended the session, restarted, or
    /// the network dropped between two statements) the write fails unseen and the answer's
    /// future is never completed, and a statement on a connection whose network went silent
    /// waits as long as TCP does. A thread waiting for either would wait forever and keep its
    /// connection's slot in the pool. So: no statement on a closed connection, and none waited
    /// for longer than `answerTimeout`; a connection that ran out of time is closed, so that
    /// the pool replaces it.
    func answer(to query: PostgresQuery) throws -> PostgresQueryResult {
        try connection.answer(to: query, within: answerTimeout, logger: logger).wait()
    }

    /// A value as PostgreSQL receives it: typed, so that a comparison with a column of another
    /// type is an error rather than a silent conversion. NULL has no type: the server infers it.
    static func bind(_ value: DatabaseValue, into binds: inout PostgresBindings) {
        switch value.storage {
        case .null: binds.appendNull()
        case let .int64(integer): binds.append(integer)
        case let .double(double): binds.append(double)
        case let .string(text): binds.append(text)
        case let .blob(data): binds.append(ByteBuffer(bytes: data))
        }
    }

    /// A cell as SQLite would have given it: integers (and booleans, as 0 and 1), doubles,
    /// text and bytes.
    static func databaseValue(_ cell: PostgresCell) throws -> DatabaseValue {
        guard var bytes = cell.bytes else { return .null }
        switch cell.dataType {
        case .int2: return try Int64(cell.decode(Int16.self)).databaseValue
        case .int4: return try Int64(cell.decode(Int32.self)).databaseValue
        case .int8: return try cell.decode(Int64.self).databaseValue
        case .oid: return try Int64(UInt32(bitPattern: cell.decode(Int32.self))).databaseValue
        case .float4: return try Double(cell.decode(Float.self)).databaseValue
        case .float8: return try cell.decode(Double.self).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0).databaseValue
        case .numeric:
            // SUM and AVG of integers: whole numbers stay integers, as in SQLite.
            let decimal = try cell.decode(Decimal.self)
            if decimal == decimal.rounded(), let integer = Int64(exactly: NSDecimalNumber(decimal: decimal).int64Value),
               Decimal(integer) == decimal {
                return integer.databaseValue
            }
            return NSDecimalNumber(decimal: decimal).doubleValue.databaseValue
        case .bytea: return Data(bytes.readBytes(length: bytes.readableBytes) ?? []).databaseValue
        case .void: return .null
        default: return try cell.decode(String.self).databaseValue
        }
    }
}

private extension Decimal {
    func rounded() -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, 0, .plain)
        return result
    }
}

/// A statement PostgreSQL refused or could not run: its SQLSTATE, the server's message and
/// the statement (never its values), where postgres-nio's own error says only "PSQLError".
public struct PostgresStatementError: Error, CustomStringConvertible {
    /// SQLSTATE (`40001` serialization failure, `23505` unique violation…), nil when the
    /// connection failed rather than the statement.
    public let sqlState: String?
    public let message: String
    public let sql: String

    init(_ error: PSQLError, sql: String) {
        sqlState = error.serverInfo?[.sqlState]
        message = error.serverInfo?[.message] ?? "\(error.code)"
        self.sql = sql
    }

    public var description: String {
        "PostgreSQL \(sqlState ?? "connection error"): \(message) — in: \(sql.split(whereSeparator: \.isNewline).joined(separator: " "))"
    }
}

extension PostgresConnection {
    /// The answer to `query`, failed with `StoreError.unavailable` when it cannot come: the
    /// connection is closed already (postgres-nio would drop the statement and never answer, see
    /// `PostgresTransaction.answer(to:)`), or `timeout` passes first — then the connection is
    /// closed, so that whoever holds it replaces it.
    func answer(to query: PostgresQuery, within timeout: TimeAmount?, logger: Logger) -> EventLoopFuture<PostgresQueryResult> {
        guard !isClosed else {
            return eventLoop.makeFailedFuture(StoreError.unavailable("the connection to PostgreSQL closed before the statement was sent"))
        }
        let answer = self.query(query, logger: logger)
        guard let timeout else { return answer }
        let bounded = eventLoop.makePromise(of: PostgresQueryResult.self)
        answer.cascade(to: bounded)
        let deadline = eventLoop.scheduleTask(in: timeout) {
            // Completing a promise twice is a no-op in NIO: an answer that came first stands.
            bounded.fail(StoreError.unavailable("PostgreSQL did not answer within \(timeout.nanoseconds / 1_000_000_000) s"))
            _ = self.close() as EventLoopFuture<Void>
        }
        bounded.futureResult.whenComplete { _ in deadline.cancel() }
        return bounded.futureResult
    }
}
