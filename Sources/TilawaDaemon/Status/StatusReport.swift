import Foundation
import TilawaStore

/// The operations summary (DESIGN §7): what `tilawa status --json` prints and
/// `GET /v1/status` returns. JSON members are `snake_case`; absent values are `null`,
/// never left out, so a script can rely on every member being there.
///
/// `state` is the worst of `checks` (see `StatusThresholds` for when each check turns
/// WARNING or CRITICAL); `tilawa status` exits with its Nagios code.
public struct StatusReport: Encodable, Sendable {
    /// The overall verdict: the worst of `checks`.
    public var state: StatusState
    /// When the report was made.
    public var generatedAt: Date
    /// The state directory the report describes (absolute).
    public var stateDir: String
    /// The daemon, as `/readyz` answered.
    public var daemon: Daemon
    /// Accepted and refused uploads.
    public var uploads: Uploads
    /// Submissions waiting for a coach, and the longest wait.
    public var awaitingFeedback: Backlog
    /// Submissions waiting past `program.feedback_due_hours`.
    public var overdue: Overdue
    /// Overdue submissions by the coach of their enrolment (only coaches with some;
    /// `unplaced` for placement assessments of students without a coach yet).
    public var overdueByCoach: [String: Int]
    /// Of the weekly recordings whose reply fell due in the last 28 days, the share answered
    /// in time, overall and by coach: the programme's promise to students, kept or not.
    public var replyTurnaround: ReplyTurnaroundReport = .init(windowDays: 28, dueHours: 48, figures: [:])
    /// Enrolments awaiting placement, and graduated levels.
    public var enrolments: Enrolments
    /// Students' questions about replies: not answered yet, and past the turnaround.
    public var questions: Questions
    /// The encode job queue.
    public var encodeQueue: EncodeQueue
    /// The coach drop folder.
    public var dropbox: Dropbox
    /// The notification outbox.
    public var notifications: Notifications
    /// Free space and bytes used by artifacts.
    public var disk: Disk
    /// The database file's size.
    public var database: DatabaseFile
    /// Rows pointing to files that do not exist.
    public var missingArtifacts: MissingArtifacts
    /// The last backup, and whether backups are scheduled.
    public var backup: Backup
    /// The daemons sharing the database and what each holds.
    public var cluster: Cluster
    /// Every check that was evaluated, in a fixed order.
    public var checks: [Check]
    /// The identity provider's key set as the daemon holds it (`GET /v1/status` only, when
    /// `oidc.*` is configured: `tilawa status` reads the database, not the daemon's memory).
    public var identityProvider: IdentityProvider? = nil
    /// Pushes to phones, when `push.apns.*` or `push.fcm.*` is configured.
    public var pushes: Pushes? = nil
    /// Students' erasure requests pending, and any the daemon is late carrying out (DESIGN §16).
    public var erasureRequests = ErasureRequests(pending: 0, earliestDueAt: nil, late: 0)

    /// `pushes`: what waits, what went out in a day, and why a channel stopped.
    public struct Pushes: Encodable, Sendable, Equatable {
        public var pending: Int
        public var oldestPendingAgeSeconds: Int?
        public var sentLast24h: Int
        /// By platform (`ios`): why its channel stopped (a refused key or topic).
        public var stopped: [String: String]

        enum CodingKeys: String, CodingKey {
            case pending, stopped
            case oldestPendingAgeSeconds = "oldest_pending_age_seconds"
            case sentLast24h = "sent_last_24h"
        }

        /// Every member, an absent age as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(pending, forKey: .pending)
            try container.encode(oldestPendingAgeSeconds, forKey: .oldestPendingAgeSeconds)
            try container.encode(sentLast24h, forKey: .sentLast24h)
            try container.encode(stopped, forKey: .stopped)
        }
    }

    /// `identity_provider`: how old the key set is and what went wrong last.
    public struct IdentityProvider: Encodable, Sendable {
        public var keySetAgeSeconds: Int?
        public var keys: Int
        public var skippedKeys: [String]
        public var lastFetchError: String?
        public var lastFetchErrorAt: Date?
    }

    /// `backup`: the last backup of this state directory (the schedule's or `tilawa backup create`'s).
    public struct Backup: Encodable, Sendable, Equatable {
        /// `backup.dir`, when backups are scheduled.
        public var dir: String?
        public var everyHours: Int?
        public var lastAt: Date?
        public var lastAgeSeconds: Int?
        public var lastPath: String?
        public var verified: Bool?

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(dir, forKey: .dir)
            try container.encode(everyHours, forKey: .everyHours)
            try container.encode(lastAt, forKey: .lastAt)
            try container.encode(lastAgeSeconds, forKey: .lastAgeSeconds)
            try container.encode(lastPath, forKey: .lastPath)
            try container.encode(verified, forKey: .verified)
        }

        enum CodingKeys: String, CodingKey {
            case dir, verified
            case everyHours, lastAt, lastAgeSeconds, lastPath
        }
    }

    /// Students' questions about coach replies.
    public struct Questions: Encodable, Sendable, Equatable {
        /// Not answered yet.
        public var open: Int
        /// Not answered within `program.feedback_due_hours`.
        public var overdue: Int
    }

    /// Students in the programme year: waiting for a level, and levels graduated.
    public struct Enrolments: Encodable, Sendable, Equatable {
        /// Students none of whose enrolments has a level and coach yet.
        public var awaitingPlacement: Int
        /// Enrolments whose end-of-course assessment was passed.
        public var graduated: Int
    }

    /// `reply_turnaround`: `due` replies fell due in the window, `in_time` were sent by then,
    /// `share` is their ratio (null when none fell due); the same by the coach of the enrolment.
    public struct ReplyTurnaroundReport: Encodable, Sendable, Equatable {
        public var windowDays: Int
        public var dueHours: Double
        public var due: Int
        public var inTime: Int
        public var share: Double?
        public var byCoach: [String: Figure]

        /// One coach's figures.
        public struct Figure: Encodable, Sendable, Equatable {
            public var due: Int
            public var inTime: Int
            public var share: Double?

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(due, forKey: .due)
                try container.encode(inTime, forKey: .inTime)
                try container.encode(share, forKey: .share)
            }

            enum CodingKeys: String, CodingKey { case due, inTime, share }
        }

        public init(windowDays: Int, dueHours: Double, figures: [String: ReplyTurnaround]) {
            self.windowDays = windowDays
            self.dueHours = dueHours
            let total = ReplyTurnaround.total(figures.values)
            due = total.due
            inTime = total.inTime
            share = total.share
            byCoach = figures.mapValues { Figure(due: $0.due, inTime: $0.inTime, share: $0.share) }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(windowDays, forKey: .windowDays)
            try container.encode(dueHours, forKey: .dueHours)
            try container.encode(due, forKey: .due)
            try container.encode(inTime, forKey: .inTime)
            try container.encode(share, forKey: .share)
            try container.encode(byCoach, forKey: .byCoach)
        }

        enum CodingKeys: String, CodingKey { case windowDays, dueHours, due, inTime, share, byCoach }
    }

    /// The check named `name`, if it was evaluated.
    public func check(_ name: String) -> Check? {
        checks.first { $0.name == name }
    }
}
