import GRDB
import Logging
import PostgresNIO
import TilawaStore

extension PostgresStore {
    /// LISTEN on a connection of its own, connected again a second after it drops; a
    /// `receive(nil, "")` after each (re)connection stands for what was sent meanwhile.
    public func listen(to signals: [StoreSignal], receive: @escaping @Sendable (StoreSignal?, String) -> Void) async {
        while !Task.isCancelled {
            do {
                let connection = try await connections.connectOwn()
                await withTaskGroup(of: Void.self) { group in
                    for signal in signals {
                        group.addTask { [logger] in
                            do {
                                try await connection.listen(on: signal.rawValue) { notifications in
                                    for try await notification in notifications { receive(signal, notification.payload) }
                                }
                            } catch {
                                logger.notice("listening stopped", metadata: ["channel": "\(signal.rawValue)", "error": "\(String(reflecting: error))"])
                            }
                        }
                    }
                    // Whatever was sent before the LISTENs took effect: look as if woken.
                    receive(nil, "")
                    // The first channel to stop (its connection dropped) ends them all.
                    await group.next()
                    group.cancelAll()
                }
                try? await connection.close()
            } catch {
                logger.notice("cannot listen for signals", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    public func send(_ signal: StoreSignal, payload: String) async throws {
        try await write { db in try db.execute(sql: "SELECT pg_notify(?, ?)", arguments: [signal.rawValue, payload]) }
    }
}
