import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import TilawaDaemon
import TilawaPostgres

/// `tilawa db check`: whether the PostgreSQL server `database.url` names takes Tilawa as the
/// engine will use it (DESIGN §13), before any data goes there.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Check the PostgreSQL server database.url names.",
        subcommands: [DatabaseCheckCommand.self]
    )
}

struct DatabaseCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Connect, check the server's version, the right to create tables and a student lock, on one connection.",
        discussion: """
            One line per step; nothing is left behind (a temporary table, a transaction's lock). Exit \
            status: 0 ready, 69 the server cannot be reached, 77 it refuses the user or password, 78 \
            configuration (no postgres:// database.url, an unreadable password file, no such database, \
            a server older than 15, no right to create tables).
            """
    )

    @OptionGroup var config: ConfigurationOptions

    func run() async throws {
        let configuration = try config.load()
        guard let location = configuration.database.postgres else {
            throw CommandLineOutput.fail(code: "bad_configuration", message: "database.url is sqlite: (the state directory's): nothing to check",
                                         exit: ExitStatus.configuration)
        }
        let password = try configuration.database.password()
        var settings = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                        password: password, database: location.database, tls: .disable)
        settings.options.connectTimeout = .seconds(10)
        let logger = Logger(label: "tilawa.db-check")
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: settings, id: 1, logger: logger)
        } catch {
            throw Self.failure("connect", error, location: location)
        }
        do {
            try await check(connection, location: location, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        print("\(location) is ready")
    }

    private func check(_ connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws {
        var step = "connect"
        do {
            print("ok   connected to \(location.host):\(location.port) as \(location.user)")
            step = "version"
            var version = 0
            for try await value in try await connection.query("SELECT current_setting('server_version_num')::int", logger: logger).decode(Int.self) {
                version = value
            }
            guard version >= 150_000 else {
                throw CommandLineOutput.fail(code: "db_version", message: "the server is PostgreSQL \(version / 10_000); Tilawa needs 15 or later",
                                             exit: ExitStatus.configuration)
            }
            print("ok   PostgreSQL \(version / 10_000).\(version % 10_000)")
            step = "create"
            var mayCreate = false
            for try await value in try await connection.query("SELECT has_schema_privilege(current_user, 'public', 'CREATE')", logger: logger)
                .decode(Bool.self) {
                mayCreate = value
            }
            guard mayCreate else {
                throw CommandLineOutput.fail(code: "db_create_failed", message: """
                    \(location.user) may not create tables in the schema public of \(location.database) (PostgreSQL 15 gives that to the \
                    database's owner only): make it the owner (ALTER DATABASE \(location.database) OWNER TO \(location.user)) or GRANT CREATE
                    """, exit: ExitStatus.configuration)
            }
            print("ok   may create tables in public")
            step = "lock"
            try await connection.query("BEGIN", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(Int32(0x5449_4C01)), hashtext('tilawa-check'))", logger: logger)
            try await connection.query("COMMIT", logger: logger)
            print("ok   took and released a student lock (pg_advisory_xact_lock)")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw Self.failure(step, error, location: location)
        }
    }

    /// The step's failure as one line an operator can act on, with the exit status it deserves.
    static func failure(_ step: String, _ error: any Error, location: PostgresLocation) -> ExitCode {
        let state = (error as? PSQLError)?.serverInfo?[.sqlState]
        let message = (error as? PSQLError)?.serverInfo?[.message] ?? "\(error)"
        switch state {
        case "28P01", "28000":
            return CommandLineOutput.fail(code: "db_\(step)_failed", message: "the server refuses \(location.user): \(message) (database.password_file?)",
                                          exit: ExitStatus.refusedByRule)
        case "3D000":
            return CommandLineOutput.fail(code: "db_\(step)_failed", message: "\(location.host):\(location.port) has no database \(location.database); create it first",
                                          exit: ExitStatus.configuration)
        case .some:
            return CommandLineOutput.fail(code: "db_\(step)_failed", message: "\(step): \(message) (SQLSTATE \(state ?? ""))", exit: ExitStatus.unavailable)
        case nil:
            return CommandLineOutput.fail(code: "db_\(step)_failed", message: "\(location.host):\(location.port) cannot be reached: \(error)",
                                          exit: ExitStatus.unavailable)
        }
    }
}
