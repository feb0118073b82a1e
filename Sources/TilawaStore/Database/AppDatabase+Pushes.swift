import Foundation
import GRDB
import TilawaCore

/// One push to send: an event to one device of its recipient, with what the request needs.
public struct PushJob: Sendable, Equatable {
    public var eventSeq: Int64
    public var eventId: String
    public var eventType: String
    public var payload: Data
    public var device: Device
    /// How many times it was tried before.
    public var attempts: Int
    /// The recipient's unread count (students), for the badge.
    public var badge: Int?
}

/// What the pushes' queue holds, for `status` and `/metrics`.
public struct PushSummary: Sendable, Equatable {
    public var pending: Int
    public var oldestPendingSince: Date?
    public var sentLastDay: Int
    /// Why a channel stopped (`meta`), by platform; empty when every channel sends.
    public var stopped: [String: String]
}

extension AppDatabase {
    /// The migration "pushes: deliveries". Never edited once landed. The cursor starts at the
    /// newest event: an upgraded installation does not push its history.
    static func migratePushDeliveries(_ db: Database) throws {
        try db.create(table: "pushDelivery") { t in
            t.column("eventSeq", .integer).notNull()
            t.column("ownerKind", .text).notNull()
            t.column("ownerId", .text).notNull()
            t.column("deviceId", .text).notNull()
            t.column("state", .text).notNull()
            t.column("attempts", .integer).notNull().defaults(to: 0)
            t.column("nextAttemptAt", .datetime).notNull()
            t.column("lastError", .text)
            t.column("sentAt", .datetime)
            t.column("sendingBy", .text)
            t.column("sendingUntil", .datetime)
            t.primaryKey(["eventSeq", "ownerKind", "ownerId", "deviceId"])
        }
        try db.create(index: "pushDelivery_due", on: "pushDelivery", columns: ["state", "nextAttemptAt"])
        try db.execute(sql: """
            INSERT INTO meta (key, value, updatedAt)
            VALUES ('push_cursor', (SELECT CAST(COALESCE(MAX(seq), 0) AS TEXT) FROM event), strftime('%Y-%m-%d %H:%M:%f', 'now'))
            ON CONFLICT(key) DO NOTHING
            """)
    }

    static let pushCursorKey = "push_cursor"

    /// The `meta` key saying why `platform`'s channel stopped.
    static func pushStoppedKey(_ platform: Device.Platform) -> String { "push_stopped_\(platform.rawValue)" }

    /// Turns the events written since the last call into deliveries, one per device of their
    /// recipient on `platforms` (the channels configured), in one transaction with the cursor:
    /// every event is fanned out once, across restarts and nodes. An event that does not push
    /// (the student's own action, a category they turned off, one for operations) makes none.
    /// A student's push of a category they may silence, written inside their quiet hours,
    /// waits for the hours' end (the webhook's rule). Returns how many deliveries it made.
    public func fanOutPushes(platforms: Set<Device.Platform>, programmeQuietHours: NotificationSchedule.QuietHours?,
                             programmeZone: TimeZone, now: Date, limit: Int = 500) async throws -> Int {
        // Two nodes at once: one commits, the other's transaction collides on the cursor and
        // runs again from the new one (and a delivery already made is not made twice).
        try await engine.write { db in
            let cursor = Int64(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.pushCursorKey]) ?? "0") ?? 0
            let events = try EventRecord.fetchAll(db, sql: "SELECT * FROM event WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [cursor, limit])
            guard let last = events.last?.seq else { return 0 }
            var made = 0
            for event in events {
                guard let seq = event.seq, Self.pushes(event) else { continue }
                let owner: (kind: Device.Owner, id: String)? = switch event.recipient {
                case "student": event.studentId.map { (Device.Owner.student, $0) }
                case "coach": event.recipientId.map { (Device.Owner.coach, $0) }
                default: nil
                }
                guard let owner else { continue }
                let (kind, ownerId) = owner
                var notBefore = now
                if kind == .student, Self.mayBeHeld(event), let student = try StudentRecord.fetchOne(db, key: ownerId),
                   let quiet = student.quietHours(or: programmeQuietHours) {
                    var calendar = Calendar(identifier: .gregorian)
                    calendar.timeZone = student.zone(or: programmeZone)
                    if let end = quiet.end(containing: now, calendar: calendar), end > now { notBefore = end }
                }
                for device in try Self.devices(db, owner: kind, ownerId: ownerId) where platforms.contains(device.platform) {
                    try db.execute(sql: """
                        INSERT INTO pushDelivery (eventSeq, ownerKind, ownerId, deviceId, state, attempts, nextAttemptAt)
                        VALUES (?, ?, ?, ?, 'pending', 0, ?) ON CONFLICT DO NOTHING
                        """, arguments: [seq, kind.rawValue, ownerId, device.deviceId, notBefore])
                    made += db.changesCount
                }
            }
            try Self.setMeta(db, key: Self.pushCursorKey, value: String(last), at: now)
            return made
        }
    }

    /// Whether the stored event asks to be pushed (`push: true`, decided when it was written).
    static func pushes(_ event: EventRecord) -> Bool {
        struct Push: Decodable { let push: Bool? }
        return (try? JSONDecoder().decode(Push.self, from: event.payload))?.push ?? false
    }

    /// Claims up to `limit` due deliveries on `platform` for `sender` until `until` (another
    /// node takes them after: a node that died mid-send), most overdue first; another
    /// platform's (a channel stopped or not configured) never stand in their way. A delivery
    /// whose device has gone (signed out, its token moved) is dropped on the way, and so is a
    /// student's notice about a reply the back office has since moved to another student's
    /// recording (`moveFeedback`): held for the night or waiting for a retry, it would tell
    /// the student the reply left about a reply that is no longer theirs.
    public func claimPushes(platform: Device.Platform, sender: String, until: Date, now: Date, limit: Int) async throws -> [PushJob] {
        try await engine.claimWrite { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT eventSeq, ownerKind, ownerId, deviceId, attempts FROM pushDelivery p
                WHERE state = 'pending' AND nextAttemptAt <= ? AND (sendingUntil IS NULL OR sendingUntil <= ?)
                  AND NOT EXISTS (SELECT 1 FROM device d WHERE d.ownerKind = p.ownerKind AND d.ownerId = p.ownerId
                                  AND d.deviceId = p.deviceId AND d.platform <> ?)
                ORDER BY nextAttemptAt, eventSeq LIMIT ?\(db.skipLocked)
                """, arguments: [now, now, platform.rawValue, limit])
            var jobs: [PushJob] = []
            // The claim's jobs share a few events (a week's unlock: one): each read and checked once.
            var events: [Int64: (record: EventRecord, movedAway: Bool)?] = [:]
            for row in rows {
                let seq: Int64 = row["eventSeq"], kind: String = row["ownerKind"], ownerId: String = row["ownerId"], deviceId: String = row["deviceId"]
                let key: SQLArguments = [seq, kind, ownerId, deviceId]
                if events[seq] == nil {
                    events[seq] = try EventRecord.fetchOne(db, sql: "SELECT * FROM event WHERE seq = ?", arguments: [seq])
                        .map { ($0, try Self.aboutReplyMovedAway(db, $0)) }
                }
                guard let deviceRow = try Row.fetchOne(db, sql: "SELECT * FROM device WHERE ownerKind = ? AND ownerId = ? AND deviceId = ?",
                                                       arguments: [kind, ownerId, deviceId]),
                      let (event, movedAway) = events[seq] ?? nil else {
                    try db.execute(sql: """
                        UPDATE pushDelivery SET state = 'dropped', lastError = 'the device or the event is gone'
                        WHERE eventSeq = ? AND ownerKind = ? AND ownerId = ? AND deviceId = ?
                        """, arguments: key)
                    continue
                }
                if movedAway {
                    try db.execute(sql: """
                        UPDATE pushDelivery SET state = 'dropped', lastError = 'the reply was moved to another student'
                        WHERE eventSeq = ? AND ownerKind = ? AND ownerId = ? AND deviceId = ?
                        """, arguments: key)
                    continue
                }
                let device = try Device(row: deviceRow)
                guard device.platform == platform else { continue }
                try db.execute(sql: """
                    UPDATE pushDelivery SET sendingBy = ?, sendingUntil = ?
                    WHERE eventSeq = ? AND ownerKind = ? AND ownerId = ? AND deviceId = ?
                    """, arguments: [sender, until, seq, kind, ownerId, deviceId])
                let badge = kind == Device.Owner.student.rawValue ? try Self.readState(db, studentId: ownerId).unreadCount : nil
                jobs.append(PushJob(eventSeq: seq, eventId: event.id, eventType: event.type, payload: event.payload, device: device,
                                    attempts: row["attempts"], badge: badge))
            }
            return jobs
        }
    }

    /// Whether `event` is a student's notice about a reply that now answers another student's
    /// recording (moved since it was written). Not a student's, about no reply, or unreadable
    /// (an erased student's, stripped): false.
    static func aboutReplyMovedAway(_ db: SQLSession, _ event: EventRecord) throws -> Bool {
        guard event.recipient == "student", let studentId = event.studentId,
              let feedbackId = (try? EventPayload.decode(event.payload))?.feedbackId else { return false }
        let owner = try String.fetchOne(db, sql: """
            SELECT submission.studentId FROM feedback JOIN submission ON submission.id = feedback.submissionId WHERE feedback.id = ?
            """, arguments: [feedbackId])
        return owner.map { $0 != studentId } ?? false
    }

    /// How a push ended.
    public enum PushOutcome: Sendable, Equatable {
        /// The service took it.
        case sent
        /// Try again at `at` (429, 5xx, no answer; a channel stopped).
        case retry(at: Date, error: String)
        /// Not sent and never will be (the service refused this notification for good).
        case dropped(error: String)
        /// The token is no longer valid: dropped, and the device signed out.
        case unregistered(error: String)
    }

    /// Gives back the claims of senders `isAlive` says are gone (a daemon of this host killed
    /// mid-send), so a daemon started again sends them at once instead of after the claims run
    /// out; another host's claims stay its own. Returns how many were given back.
    public func releasePushClaims(unless isAlive: @escaping @Sendable (String) -> Bool) async throws -> Int {
        try await engine.write { db in
            let senders = try String.fetchAll(db, sql: "SELECT DISTINCT sendingBy FROM pushDelivery WHERE state = 'pending' AND sendingBy IS NOT NULL")
            var released = 0
            for sender in senders where !isAlive(sender) {
                try db.execute(sql: "UPDATE pushDelivery SET sendingBy = NULL, sendingUntil = NULL WHERE state = 'pending' AND sendingBy = ?",
                               arguments: [sender])
                released += db.changesCount
            }
            return released
        }
    }

    /// Records how `job` ended, ending `sender`'s claim; a claim another node took meanwhile
    /// (this one's ran out) is left to it.
    public func finishPush(_ job: PushJob, outcome: PushOutcome, sender: String, now: Date) async throws {
        try await finishPushes([(job, outcome)], sender: sender, now: now)
    }

    /// Records how each of `finished` ended, in one transaction (all or none), as
    /// `finishPush` would one by one: the sends that answered while the last was being
    /// recorded cost one commit, not one each.
    public func finishPushes(_ finished: [(job: PushJob, outcome: PushOutcome)], sender: String, now: Date) async throws {
        guard !finished.isEmpty else { return }
        try await engine.write { db in
            for (job, outcome) in finished { try Self.finishPush(db, job, outcome: outcome, sender: sender, now: now) }
        }
    }

    static func finishPush(_ db: SQLSession, _ job: PushJob, outcome: PushOutcome, sender: String, now: Date) throws {
        let key: [(any DatabaseValueConvertible)?] = [job.eventSeq, job.device.owner.rawValue, job.device.ownerId, job.device.deviceId, sender]
        let mine = "eventSeq = ? AND ownerKind = ? AND ownerId = ? AND deviceId = ? AND sendingBy = ?"
        switch outcome {
        case .sent:
            try db.execute(sql: """
                UPDATE pushDelivery SET state = 'sent', sentAt = ?, attempts = attempts + 1, lastError = NULL, sendingBy = NULL, sendingUntil = NULL
                WHERE \(mine)
                """, arguments: SQLArguments([now] + key))
        case let .retry(at, error):
            try db.execute(sql: """
                UPDATE pushDelivery SET nextAttemptAt = ?, attempts = attempts + 1, lastError = ?, sendingBy = NULL, sendingUntil = NULL
                WHERE \(mine)
                """, arguments: SQLArguments([at, String(error.prefix(500))] + key))
        case let .dropped(error), let .unregistered(error):
            try db.execute(sql: """
                UPDATE pushDelivery SET state = 'dropped', attempts = attempts + 1, lastError = ?, sendingBy = NULL, sendingUntil = NULL
                WHERE \(mine)
                """, arguments: SQLArguments([String(error.prefix(500))] + key))
            if case .unregistered = outcome {
                // Only the row that still holds this token: a re-registration meanwhile stays.
                try db.execute(sql: """
                    DELETE FROM device WHERE ownerKind = ? AND ownerId = ? AND deviceId = ? AND platform = ? AND token = ?
                    """, arguments: [job.device.owner.rawValue, job.device.ownerId, job.device.deviceId, job.device.platform.rawValue,
                                     job.device.token])
            }
        }
    }

    /// Records that `platform`'s channel stopped (`reason`, naming the key) or sends again (nil).
    public func setPushChannelStopped(_ platform: Device.Platform, reason: String?, now: Date) async throws {
        try await engine.write { db in
            if let reason {
                try Self.setMeta(db, key: Self.pushStoppedKey(platform), value: reason, at: now)
            } else {
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [Self.pushStoppedKey(platform)])
            }
        }
    }

    /// The pushes' queue at `now`.
    public func pushSummary(now: Date) async throws -> PushSummary {
        try await engine.read { db in try Self.pushSummary(db, now: now) }
    }

    static func pushSummary(_ db: SQLSession, now: Date) throws -> PushSummary {
        guard try db.tableExists("pushDelivery") else { return PushSummary(pending: 0, oldestPendingSince: nil, sentLastDay: 0, stopped: [:]) }
        let pending = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE state = 'pending'") ?? 0
        let oldest = try Date.fetchOne(db, sql: """
            SELECT MIN(event.occurredAt) FROM pushDelivery JOIN event ON event.seq = pushDelivery.eventSeq WHERE pushDelivery.state = 'pending'
            """)
        let sent = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushDelivery WHERE state = 'sent' AND sentAt > ?",
                                    arguments: [now.addingTimeInterval(-86_400)]) ?? 0
        var stopped: [String: String] = [:]
        for platform in Device.Platform.allCases {
            if let reason = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.pushStoppedKey(platform)]) {
                stopped[platform.rawValue] = reason
            }
        }
        return PushSummary(pending: pending, oldestPendingSince: oldest, sentLastDay: sent, stopped: stopped)
    }
}
