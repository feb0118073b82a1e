import Foundation

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
    /// Overdue submissions by the student's coach id (only coaches with some).
    public var overdueByCoach: [String: Int]
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
    /// Every check that was evaluated, in a fixed order.
    public var checks: [Check]

    enum CodingKeys: String, CodingKey {
        case state, daemon, uploads, overdue, dropbox, notifications, disk, database, checks
        case generatedAt = "generated_at"
        case stateDir = "state_dir"
        case awaitingFeedback = "awaiting_feedback"
        case overdueByCoach = "overdue_by_coach"
        case encodeQueue = "encode_queue"
        case missingArtifacts = "missing_artifacts"
    }

    /// The daemon as seen through `GET /readyz` (or from inside the daemon itself).
    public struct Daemon: Encodable, Sendable, Equatable {
        /// Something answered `/readyz` as Tilawa does.
        public var up: Bool
        /// It answered 200 (database open, disk not full).
        public var ready: Bool
        /// Whether `--expect-running` was given: a down daemon is then CRITICAL.
        public var expectedRunning: Bool
        /// The address asked; nil when the report comes from the daemon itself.
        public var url: String?
        /// Seconds since the daemon started.
        public var uptimeSeconds: Int?
        /// When the daemon started.
        public var startedAt: Date?
        /// The daemon's process id.
        public var pid: Int?
        /// Why it is not up or not ready (`connection refused`, `storage_full`, …).
        public var error: String?

        /// Creates the section.
        public init(up: Bool, ready: Bool, expectedRunning: Bool, url: String? = nil, uptimeSeconds: Int? = nil,
                    startedAt: Date? = nil, pid: Int? = nil, error: String? = nil) {
            self.up = up
            self.ready = ready
            self.expectedRunning = expectedRunning
            self.url = url
            self.uptimeSeconds = uptimeSeconds
            self.startedAt = startedAt
            self.pid = pid
            self.error = error
        }

        enum CodingKeys: String, CodingKey {
            case up, ready, url, pid, error
            case expectedRunning = "expected_running"
            case uptimeSeconds = "uptime_seconds"
            case startedAt = "started_at"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(up, forKey: .up)
            try container.encode(ready, forKey: .ready)
            try container.encode(expectedRunning, forKey: .expectedRunning)
            try container.encode(url, forKey: .url)
            try container.encode(uptimeSeconds, forKey: .uptimeSeconds)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(pid, forKey: .pid)
            try container.encode(error, forKey: .error)
        }
    }

    /// Uploads in the last 24 hours and 7 days.
    public struct Uploads: Encodable, Sendable, Equatable {
        /// The 24 hours before `generated_at`.
        public var last24h: UploadCounts
        /// The 7 days before `generated_at`.
        public var last7d: UploadCounts

        enum CodingKeys: String, CodingKey {
            case last24h = "last_24h"
            case last7d = "last_7d"
        }
    }

    /// Accepted and refused uploads of one window.
    public struct UploadCounts: Encodable, Sendable, Equatable {
        /// Recordings that became submissions (not counting those that later failed).
        public var accepted: Int
        /// Refused uploads, all reasons.
        public var rejected: Int
        /// Refusals by primary reason code (`too_quiet`, `attempt_limit`, …).
        public var rejectedByReason: [String: Int]

        enum CodingKeys: String, CodingKey {
            case accepted, rejected
            case rejectedByReason = "rejected_by_reason"
        }
    }

    /// A count of waiting items and how long the oldest has waited.
    public struct Backlog: Encodable, Sendable, Equatable {
        /// Items waiting.
        public var count: Int
        /// How long the oldest has waited, in seconds; nil when none waits.
        public var oldestAgeSeconds: Int?

        enum CodingKeys: String, CodingKey {
            case count
            case oldestAgeSeconds = "oldest_age_seconds"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            try container.encode(oldestAgeSeconds, forKey: .oldestAgeSeconds)
        }
    }

    /// Submissions still awaiting feedback past `program.feedback_due_hours`.
    public struct Overdue: Encodable, Sendable, Equatable {
        /// Overdue submissions.
        public var count: Int
        /// `program.feedback_due_hours`.
        public var dueHours: Double

        enum CodingKeys: String, CodingKey {
            case count
            case dueHours = "due_hours"
        }
    }

    /// The durable encode job queue; `count` is queued + running.
    public struct EncodeQueue: Encodable, Sendable, Equatable {
        /// Queued plus running.
        public var count: Int
        /// Age of the oldest queued or running job, in seconds.
        public var oldestAgeSeconds: Int?
        /// Jobs waiting for a worker.
        public var queued: Int
        /// Jobs a worker holds.
        public var running: Int
        /// Jobs that gave up (their recordings are not playable).
        public var failed: Int

        enum CodingKeys: String, CodingKey {
            case count, queued, running, failed
            case oldestAgeSeconds = "oldest_age_seconds"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            try container.encode(oldestAgeSeconds, forKey: .oldestAgeSeconds)
            try container.encode(queued, forKey: .queued)
            try container.encode(running, forKey: .running)
            try container.encode(failed, forKey: .failed)
        }
    }

    /// The coach drop folder (DESIGN §5).
    public struct Dropbox: Encodable, Sendable, Equatable {
        /// `dropbox.path`.
        public var path: String
        /// Whether the folder exists yet.
        public var exists: Bool
        /// Reply files waiting in `<dropbox>/<coach>/` (temporary names and notes not counted).
        public var backlog: Int
        /// Age of the oldest waiting file (by its modification time).
        public var oldestAgeSeconds: Int?
        /// Files in the coaches' `rejected/` folders (not counting `.reason.txt`).
        public var rejected: Int
        /// Files the watcher rejected in the last 24 hours (from the database).
        public var rejectedLast24h: Int
        /// Coach folders nothing is taken from (a link where a folder should be), and why.
        public var suspended: [Suspension] = []

        /// A coach folder the watcher leaves alone until it is mended.
        public struct Suspension: Encodable, Sendable, Equatable {
            /// `C02` or `C02/rejected`.
            public var folder: String
            /// One sentence.
            public var reason: String
        }

        enum CodingKeys: String, CodingKey {
            case path, exists, backlog, rejected, suspended
            case oldestAgeSeconds = "oldest_age_seconds"
            case rejectedLast24h = "rejected_last_24h"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(exists, forKey: .exists)
            try container.encode(backlog, forKey: .backlog)
            try container.encode(oldestAgeSeconds, forKey: .oldestAgeSeconds)
            try container.encode(rejected, forKey: .rejected)
            try container.encode(rejectedLast24h, forKey: .rejectedLast24h)
            try container.encode(suspended, forKey: .suspended)
        }
    }

    /// The notification outbox.
    public struct Notifications: Encodable, Sendable, Equatable {
        /// Events not yet delivered to the webhook.
        public var count: Int
        /// How long the oldest has waited, in seconds.
        public var oldestAgeSeconds: Int?
        /// Whether `webhook.url` is set; without it events stay in the outbox for the feed only.
        public var webhookConfigured: Bool

        enum CodingKeys: String, CodingKey {
            case count
            case oldestAgeSeconds = "oldest_age_seconds"
            case webhookConfigured = "webhook_configured"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            try container.encode(oldestAgeSeconds, forKey: .oldestAgeSeconds)
            try container.encode(webhookConfigured, forKey: .webhookConfigured)
        }
    }

    /// The filesystem holding the state directory.
    public struct Disk: Encodable, Sendable, Equatable {
        /// The directory examined (the state directory, or its nearest existing parent).
        public var path: String
        /// Bytes available to the daemon's user; nil when the filesystem could not be examined.
        public var freeBytes: Int64?
        /// Size of the filesystem; nil when it could not be examined.
        public var totalBytes: Int64?
        /// `free_bytes` as a percentage of `total_bytes`.
        public var freePercent: Double?
        /// Originals and encoded audio, summed from the database rows.
        public var artifactBytes: Int64

        enum CodingKeys: String, CodingKey {
            case path
            case freeBytes = "free_bytes"
            case totalBytes = "total_bytes"
            case freePercent = "free_percent"
            case artifactBytes = "artifact_bytes"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(freeBytes, forKey: .freeBytes)
            try container.encode(totalBytes, forKey: .totalBytes)
            try container.encode(freePercent, forKey: .freePercent)
            try container.encode(artifactBytes, forKey: .artifactBytes)
        }
    }

    /// `tilawa.sqlite` and its write-ahead log.
    public struct DatabaseFile: Encodable, Sendable, Equatable {
        /// `<state_dir>/tilawa.sqlite`.
        public var path: String
        /// Whether it exists yet.
        public var exists: Bool
        /// The database file plus its `-wal` file.
        public var sizeBytes: Int64
        /// The `-wal` file alone.
        public var walBytes: Int64

        enum CodingKeys: String, CodingKey {
            case path, exists
            case sizeBytes = "size_bytes"
            case walBytes = "wal_bytes"
        }
    }

    /// Artifact files that rows point to but that do not exist.
    public struct MissingArtifacts: Encodable, Sendable, Equatable {
        /// Missing among the files of rows received since `checked_since` (checked by this report).
        public var count: Int
        /// Files checked by this report.
        public var checkedFiles: Int
        /// Start of the window this report checked (7 days back); nil when nothing could be read.
        public var checkedSince: Date?
        /// Up to 10 of the missing paths, relative to `artifacts/`.
        public var examples: [String]
        /// What the daemon's last full sweep (at start and daily, every row) found.
        public var lastFullSweep: Sweep?

        /// One full sweep's result.
        public struct Sweep: Encodable, Sendable, Equatable {
            /// When the sweep ran.
            public var sweptAt: Date
            /// Rows whose file was missing.
            public var count: Int

            enum CodingKeys: String, CodingKey {
                case count
                case sweptAt = "swept_at"
            }
        }

        enum CodingKeys: String, CodingKey {
            case count, examples
            case checkedFiles = "checked_files"
            case checkedSince = "checked_since"
            case lastFullSweep = "last_full_sweep"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            try container.encode(checkedFiles, forKey: .checkedFiles)
            try container.encode(checkedSince, forKey: .checkedSince)
            try container.encode(examples, forKey: .examples)
            try container.encode(lastFullSweep, forKey: .lastFullSweep)
        }
    }

    /// One evaluated check.
    public struct Check: Encodable, Sendable, Equatable {
        /// Stable name: `state_dir`, `database`, `daemon`, `feedback_overdue`, `encode_jobs`,
        /// `notifications`, `dropbox_rejections`, `disk_space`, `missing_artifacts`.
        public var name: String
        /// OK, WARNING, CRITICAL or UNKNOWN.
        public var state: StatusState
        /// One sentence for the operator.
        public var message: String

        /// Creates a check result.
        public init(name: String, state: StatusState, message: String) {
            self.name = name
            self.state = state
            self.message = message
        }
    }

    /// The check named `name`, if it was evaluated.
    public func check(_ name: String) -> Check? {
        checks.first { $0.name == name }
    }
}
