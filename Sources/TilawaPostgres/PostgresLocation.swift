import Foundation

/// Where the PostgreSQL engine's database is (`database.url`, DESIGN §13):
/// `postgres://user@host[:port]/database`. The password is never in the URL (it would end up
/// in logs, `ps` and shell histories): it comes from `database.password_file`.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public let user: String
    public let host: String
    public let port: Int
    public let database: String

    /// Parses `postgres://user@host[:port]/database` (or `postgresql://`); nil for anything
    /// else: no user or database, a password in the URL, a query, a port outside 1–65535.
    public init?(url: String) {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"), let parts = URLComponents(string: url),
              let user = parts.user, !user.isEmpty, parts.password == nil,
              let host = parts.host, !host.isEmpty, parts.query == nil, parts.fragment == nil else { return nil }
        let database = String(parts.path.dropFirst())
        guard parts.path.hasPrefix("/"), !database.isEmpty, !database.contains("/") else { return nil }
        let port = parts.port ?? 5432
        guard (1...65535).contains(port) else { return nil }
        self.user = user
        self.host = host
        self.port = port
        self.database = database
    }

    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
