import Foundation

/// The report's sections about the drop folder, the outbox, storage, and the checks.
extension StatusReport {
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
            case oldestAgeSeconds
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
        /// Set while deliveries are off because the receiver answered 410 Gone.
        public var disabled: String? = nil

        enum CodingKeys: String, CodingKey {
            case count, disabled
            case oldestAgeSeconds
            case webhookConfigured
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(count, forKey: .count)
            try container.encode(oldestAgeSeconds, forKey: .oldestAgeSeconds)
            try container.encode(webhookConfigured, forKey: .webhookConfigured)
            try container.encode(disabled, forKey: .disabled)
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
        /// Where artifacts are kept: `file:` (on this filesystem, so `free_bytes` is their room
        /// too) or `s3://bucket/prefix` (`artifact_bytes` are in the store; this filesystem holds
        /// the database and the work area only).
        public var artifactsURL = "file:"

        enum CodingKeys: String, CodingKey {
            case path
            case freeBytes
            case totalBytes
            case freePercent
            case artifactBytes
            case artifactsURL = "artifactsUrl"
        }

        /// Encodes every member, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(freeBytes, forKey: .freeBytes)
            try container.encode(totalBytes, forKey: .totalBytes)
            try container.encode(freePercent, forKey: .freePercent)
            try container.encode(artifactBytes, forKey: .artifactBytes)
            try container.encode(artifactsURL, forKey: .artifactsURL)
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
                case sweptAt
            }
        }

        enum CodingKeys: String, CodingKey {
            case count, examples
            case checkedFiles
            case checkedSince
            case lastFullSweep
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
        /// `notifications`, `dropbox_rejections`, `disk_space`, `missing_artifacts`, `backup`,
        /// `erasure_requests` (and `pushes` when configured).
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
}
