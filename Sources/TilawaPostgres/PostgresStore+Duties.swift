import Logging
import NIOCore
import PostgresNIO
import TilawaStore

extension PostgresStore {
    /// Takes the duty on a connection of its own with a session advisory lock (not a
    /// transaction's: it lasts as long as the connection). PostgreSQL releases it when the
    /// connection ends, so a node that dies or loses the network gives the duty up, and
    /// `isHeld()` asks over that same connection, so the node learns it before another node
    /// can have taken over.
    ///
    /// The session carries `idle_session_timeout` = `dutyIdleTimeout`: a holder that stops
    /// asking (`isHeld()`, which the watcher does at least every 10 s) — a node stopped or
    /// frozen, whose connection the kernel keeps open — loses the duty to the others.
    public func claimDuty(_ name: String) async throws -> (any DutyClaim)? {
        let connection = try await connections.connectOwn()
        let (space, key) = PostgresTransaction.lockKey(.duty(name))
        do {
            // The limit and the lock in one statement: no idle gap between them to end the session in.
            let milliseconds = "\(max(1, TimeAmount(dutyIdleTimeout).nanoseconds / 1_000_000))"
            let answer = try await connection.answer(
                to: """
                    SELECT pg_try_advisory_lock(\(space), hashtext(\(key))) FROM (SELECT set_config('idle_session_timeout', \(milliseconds), false)) AS limited
                    """,
                within: PostgresDuty.answerTimeout, logger: logger).get()
            guard try answer.rows.first?.decode(Bool.self) == true else {
                try? await connection.close()
                return nil
            }
            return PostgresDuty(connection: connection, logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// A duty held by a session advisory lock on `connection`.
struct PostgresDuty: DutyClaim {
    let connection: PostgresConnection
    let logger: Logger

    /// How long one of the duty connection's statements may go unanswered: a holder that
    /// cannot hear back in this time no longer counts on the duty.
    static let answerTimeout = TimeAmount.seconds(10)

    func isHeld() async -> Bool {
        do {
            _ = try await connection.answer(to: "SELECT 1", within: Self.answerTimeout, logger: logger).get()
            return true
        } catch {
            return false
        }
    }

    func release() async {
        try? await connection.close()
    }
}
