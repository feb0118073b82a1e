import GRDB
import Logging
import TilawaPostgres
import TilawaStore

extension CommandLineStateFixture {
    /// Reads the state's database, whichever engine holds it (a connection of its own, as
    /// another process would), through the store's session: the same SQL on both engines.
    public func read<T>(_ body: (SQLSession) throws -> T) throws -> T {
        if let url = databaseURL, let location = PostgresLocation(url: url) {
            let store = PostgresStore(location: location, password: nil, maximumConnections: 1, logger: Logger(label: "test"))
            defer { store.close() }
            return try store.read(body)
        }
        let queue = try DatabaseQueue(path: stateDirectory + "/tilawa.sqlite")
        return try queue.read { db in try body(SQLSession(db)) }
    }
}

extension CommandLineStateFixture {
    /// Writes to the state's database, whichever engine holds it, in one transaction (a row a
    /// test damages on purpose).
    public func write<T>(_ body: (SQLSession) throws -> T) throws -> T {
        if let url = databaseURL, let location = PostgresLocation(url: url) {
            let store = PostgresStore(location: location, password: nil, maximumConnections: 1, logger: Logger(label: "test"))
            defer { store.close() }
            return try store.write(body)
        }
        let queue = try DatabaseQueue(path: stateDirectory + "/tilawa.sqlite")
        return try queue.write { db in try body(SQLSession(db)) }
    }

    /// The state's store, whichever engine, for `body` (the artifact sweep a test runs as the
    /// daemon would), closed after.
    public func withDatabase<T>(_ body: (AppDatabase) throws -> T) throws -> T {
        if let url = databaseURL, let location = PostgresLocation(url: url) {
            let store = PostgresStore(location: location, password: nil, maximumConnections: 2, logger: Logger(label: "test"))
            defer { store.close() }
            return try body(AppDatabase(engine: store))
        }
        return try body(try AppDatabase.open(path: stateDirectory + "/tilawa.sqlite"))
    }
}

extension ServeProcess {
    /// `tilawa serve` on `state` (its database too, whichever engine), `environment` added.
    public convenience init(state: CommandLineStateFixture, port: Int, environment: [String: String] = [:]) throws {
        try self.init(stateDirectory: state.stateDirectory, port: port, directory: state.scratch.path,
                      environment: state.environment.merging(environment) { _, explicit in explicit })
    }
}

extension CommandLineStateFixture {
    /// The submission `id`'s row once it reached `state` (polled every 0.1 s, within the hang
    /// limit), or its row as it last was; nil when there is no such row.
    public func submission(_ id: String, reaching state: String) async throws -> Row? {
        var row: Row?
        let deadline = ContinuousClock.now + TestTime.hangLimit
        repeat {
            row = try read { db in try Row.fetchOne(db, sql: "SELECT * FROM submission WHERE id = ?", arguments: [id]) }
            if row?["state"] == state { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        return row
    }
}
