import PostgresNIO
import TilawaStore

/// Which of postgres-nio's failures are the server's or the connection's rather than the
/// statement's: the session ended under it (an operator's `pg_ctl restart -m fast`,
/// `pg_terminate_backend`, a crash, a failover, the network) or the server takes no more
/// sessions for now. The store reports them as `StoreError.unavailable` — the daemon's 503
/// `database_unavailable` with `Retry-After` — never as an internal error: they pass.
public enum PostgresFault {
    /// postgres-nio's codes for a connection that closed or failed under a statement. The
    /// client-closed one too: postgres-nio gives it to statements sent after the server's FATAL
    /// message closed the connection (this store closes a connection itself only once it is
    /// done with it, or once a statement ran out of time, which is already `unavailable`).
    static let connectionCodes: Set<PSQLError.Code> = [
        .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown,
    ]

    /// SQLSTATEs (PostgreSQL's Appendix A) of a server going away or out of room for sessions:
    /// 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 57P05
    /// idle_session_timeout, 25P03 idle_in_transaction_session_timeout.
    static let sessionEndedStates: Set<String> = ["57P01", "57P02", "57P03", "57P05", "25P03"]

    /// Whether a failure with postgres-nio's `code` and the server's `sqlState` (nil when the
    /// server sent none) means the database is unavailable: the connection codes above, the
    /// states above, class 08 (connection exception) and class 53 (insufficient resources:
    /// 53300 too_many_connections, 53100 disk_full, 53200 out_of_memory).
    public static func isUnavailable(code: PSQLError.Code, sqlState: String?) -> Bool {
        if connectionCodes.contains(code) { return true }
        guard code == .server, let sqlState else { return false }
        return sessionEndedStates.contains(sqlState) || sqlState.hasPrefix("08") || sqlState.hasPrefix("53")
    }

    /// `isUnavailable(code:sqlState:)` of postgres-nio's error.
    public static func isUnavailable(_ error: PSQLError) -> Bool {
        isUnavailable(code: error.code, sqlState: error.serverInfo?[.sqlState])
    }

    /// The failure as `StoreError.unavailable`, with the server's message (postgres-nio's
    /// own description says only "PSQLError").
    static func unavailable(_ error: PSQLError, during what: String) -> StoreError {
        let reason = error.serverInfo.map { info in "\(info[.message] ?? "") (SQLSTATE \(info[.sqlState] ?? "?"))" }
            ?? error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
        return .unavailable("PostgreSQL is unavailable \(what): \(reason)")
    }
}
