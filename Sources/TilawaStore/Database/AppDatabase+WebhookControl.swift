import Foundation
import GRDB

extension AppDatabase {
    /// The `meta` key set while the receiver has said it is gone (HTTP 410).
    static let webhookDisabledKey = "webhook_disabled"

    /// Why and since when deliveries are off.
    public struct WebhookDisabled: Sendable, Equatable {
        /// One line: what the receiver answered, and to which event.
        public var reason: String
        public var since: Date
    }

    /// Turns deliveries off after the receiver answered 410 Gone (kept across restarts);
    /// `redeliverEvents` turns them on again.
    public func disableWebhook(reason: String, at date: Date) async throws {
        try await engine.write { db in try Self.setMeta(db, key: Self.webhookDisabledKey, value: reason, at: date) }
    }

    /// Whether deliveries are off, and why.
    public func webhookDisabled() throws -> WebhookDisabled? {
        try engine.read { db in try Self.webhookDisabled(db) }
    }

    static func webhookDisabled(_ db: SQLSession) throws -> WebhookDisabled? {
        guard try db.tableExists("meta"),
              let row = try Row.fetchOne(db, sql: "SELECT value, updatedAt FROM meta WHERE key = ?", arguments: [webhookDisabledKey]),
              let reason = row["value"] as String?, let since = row["updatedAt"] as Date? else { return nil }
        return WebhookDisabled(reason: reason, since: since)
    }

    /// What `tilawa events redeliver` did.
    public struct Redelivery: Sendable, Equatable {
        /// Delivered events queued again (those at or after `since`).
        public var replayed: Int
        /// Undelivered events made due now.
        public var pending: Int
        /// Whether deliveries had been off (a 410) and are on again.
        public var reenabled: Bool
    }

    /// Turns deliveries back on, makes every undelivered event (of `studentId`, when given)
    /// due now, and queues again the delivered ones that occurred at or after `since` — one
    /// transaction. Receivers de-duplicate on the event id, so a replay is safe.
    public func redeliverEvents(since: Date?, studentId: String?, now: Date) throws -> Redelivery {
        try engine.write { db in
            let reenabled = try Self.webhookDisabled(db) != nil
            try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [Self.webhookDisabledKey])
            var filter = ""
            var arguments: SQLArguments = [now]
            if let studentId {
                filter = " AND studentId = ?"
                arguments += [studentId]
            }
            try db.execute(sql: "UPDATE event SET nextAttemptAt = ? WHERE deliveredAt IS NULL" + filter, arguments: arguments)
            let pending = db.changesCount
            var replayed = 0
            if let since {
                var replayArguments: SQLArguments = [now, since]
                if let studentId { replayArguments += [studentId] }
                try db.execute(sql: """
                    UPDATE event SET deliveredAt = NULL, attempts = 0, lastError = NULL, nextAttemptAt = ?
                    WHERE deliveredAt IS NOT NULL AND occurredAt >= ?
                    """ + filter, arguments: replayArguments)
                replayed = db.changesCount
            }
            return Redelivery(replayed: replayed, pending: pending, reenabled: reenabled)
        }
    }
}
