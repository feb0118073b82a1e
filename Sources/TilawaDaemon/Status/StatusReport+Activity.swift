import Foundation

/// The report's sections about the daemon and the work passing through it.
extension StatusReport {
    /// The daemon as seen through `GET /readyz` (or from inside the daemon itself).
    public struct Daemon: Encodable, Sendable, Equatable {
        /// Something answered `/readyz` as Tilawa does.
        public var up: Bool
        /// It answered 200: in a balancer's rotation (database open, disk not full; perhaps
        /// `degraded`, which `failingChecks` says).
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
        /// The readiness checks that failed, as far as known: those a 200 names (`degraded`;
        /// empty when `ok`), the one a 503 names, or — from the daemon itself — all of them;
        /// nil when nothing answered as Tilawa does.
        public var failingChecks: [Readiness.Failure]?

        /// Creates the section.
        public init(up: Bool, ready: Bool, expectedRunning: Bool, url: String? = nil, uptimeSeconds: Int? = nil,
                    startedAt: Date? = nil, pid: Int? = nil, error: String? = nil, failingChecks: [Readiness.Failure]? = nil) {
            self.up = up
            self.ready = ready
            self.expectedRunning = expectedRunning
            self.url = url
            self.uptimeSeconds = uptimeSeconds
            self.startedAt = startedAt
            self.pid = pid
            self.error = error
            self.failingChecks = failingChecks
        }

        enum CodingKeys: String, CodingKey {
            case up, ready, url, pid, error
            case expectedRunning
            case uptimeSeconds
            case startedAt
            case failingChecks
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
            try container.encode(failingChecks, forKey: .failingChecks)
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
            case rejectedByReason
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
            case oldestAgeSeconds
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
            case dueHours
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
            case oldestAgeSeconds
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
}

extension StatusReport {
    /// `cluster`: the daemons sharing this database (DESIGN §13; one on SQLite) and the work
    /// each holds, from their heartbeats.
    public struct Cluster: Encodable, Sendable, Equatable {
        /// `sqlite` or `postgres`.
        public var engine: String
        /// Nodes seen within the last hour, most recently seen first.
        public var nodes: [Node]
        /// Running jobs whose lease ran out (their node died or stalled), being given back.
        public var expiredJobLeases: Int

        public struct Node: Encodable, Sendable, Equatable {
            /// `pid@host`.
            public var id: String
            public var startedAt: Date
            public var seenAgeSeconds: Int
            /// Seen within three heartbeats: alive as far as the database knows.
            public var live: Bool
            public var jobsRunning: Int
            public var uploadsHeld: Int
        }
    }
}
