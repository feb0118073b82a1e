import PostgresNIO
import Testing
import TilawaPostgres

/// Which failures of postgres-nio are the database's being away (503 `database_unavailable`,
/// the node rides it out) and which are the statement's own (an internal error, or a collision
/// the store runs again): no server needed, the classifier alone.
@Suite("PostgresFault: a server or connection failing is unavailable, a refused statement is not")
struct PostgresFaultTests {
    @Test("postgres-nio's connection-level codes are unavailable, whatever the server said",
          arguments: [PSQLError.Code.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown])
    func connectionCodes(code: PSQLError.Code) {
        #expect(PostgresFault.isUnavailable(code: code, sqlState: nil))
    }

    @Test("the server's SQLSTATEs of a restart, a crash, a start-up, a connection exception, too many connections",
          arguments: ["57P01", "57P02", "57P03", "57P05", "25P03", "08000", "08003", "08006", "08001", "08004", "53300", "53100", "53200"])
    func serverStates(sqlState: String) {
        #expect(PostgresFault.isUnavailable(code: .server, sqlState: sqlState))
    }

    @Test("a statement's own failures are not: collisions, constraints, syntax, a cancelled query, bad SQL",
          arguments: ["40001", "40P01", "23505", "23503", "42601", "42P01", "57014", "22P02", "XX000"])
    func statementStates(sqlState: String) {
        #expect(!PostgresFault.isUnavailable(code: .server, sqlState: sqlState))
    }

    @Test("client-side failures of the statement itself are not",
          arguments: [PSQLError.Code.tooManyParameters, .invalidCommandTag, .messageDecodingFailure, .queryCancelled, .server])
    func clientCodes(code: PSQLError.Code) {
        #expect(!PostgresFault.isUnavailable(code: code, sqlState: nil))
    }
}
