import Foundation

/// What the operations report reads from the database, all from one read transaction
/// (one consistent snapshot; a WAL reader never blocks the daemon's writers).
public struct StatusFacts: Sendable, Equatable {
    /// Uploads received in a window.
    public struct Uploads: Sendable, Equatable {
        /// Recordings that became submissions (not counting those that later `failed`).
        public var accepted = 0
        /// Refused uploads by their primary reason code (`too_quiet`, `attempt_limit`, …).
        public var rejectedByReason: [String: Int] = [:]

        /// All refused uploads.
        public var rejected: Int { rejectedByReason.values.reduce(0, +) }

        /// None.
        public init() {}
    }

    /// False when the file holds no schema yet (nothing was ever imported or received).
    public var hasSchema = false
    /// Uploads in the 24 hours before `now`.
    public var last24h = Uploads()
    /// Uploads in the 7 days before `now`.
    public var last7d = Uploads()
    /// Submissions waiting for a coach's reply.
    public var awaitingFeedback = 0
    /// When the longest-waiting of them was received.
    public var oldestAwaitingReceivedAt: Date?
    /// Submissions awaiting feedback past the due time, by the student's coach.
    public var overdueByCoach: [String: Int] = [:]
    /// The reply turnaround over the last 28 days of due replies, by coach (`replyTurnaround`).
    public var turnaround: [String: ReplyTurnaround] = [:]
    /// Students with no placed enrolment yet.
    /// Students' questions about replies not answered yet, and those past their due time.
    public var openQuestions = 0
    public var overdueQuestions = 0
    /// Why webhook deliveries are off (a 410), if they are.
    public var webhookDisabled: String?
    public var awaitingPlacement = 0
    /// Enrolments whose level was graduated (EOC passed).
    public var graduated = 0
    /// Encode jobs waiting to run.
    public var jobsQueued = 0
    /// Encode jobs claimed by a worker.
    public var jobsRunning = 0
    /// Encode jobs that gave up.
    public var jobsFailed = 0
    /// Creation time of the oldest queued or running job.
    public var oldestPendingJobCreatedAt: Date?
    /// Notifications not yet delivered to the webhook.
    public var undeliveredEvents = 0
    /// When the oldest of them happened.
    public var oldestUndeliveredOccurredAt: Date?
    /// Bytes of stored originals and encoded audio, from the rows (not the files): the
    /// running total kept by triggers (migration "status: report indexes and meta").
    ///
    /// Waveform files and coach-reply originals have no size column and are not counted.
    public var artifactBytes: Int64 = 0
    /// Artifact paths (relative to `artifacts/`) of submissions and replies received since
    /// `recentSince`, for the missing-file check.
    public var recentArtifactPaths: [String] = []
    /// Start of the window `recentArtifactPaths` covers.
    public var recentSince: Date?
    /// Drop-folder files rejected in the 24 hours before `now`.
    public var dropboxRejectedLast24h = 0
    /// The daemon's last full artifact sweep, if it recorded one.
    public var lastSweep: ArtifactSweepSummary?
    /// The last backup, whoever made it.
    public var lastBackup: LastBackup?
    /// The pushes' queue (deliveries to phones).
    public var pushes: PushSummary?

    /// The database's size as its server reports it (PostgreSQL); nil for SQLite, whose files the reporter measures.
    public var databaseBytes: Int64?
    /// The daemons seen lately, most recent first (every node of a shared database).
    public var nodes: [NodeFact] = []
    /// Running jobs whose lease ran out: a node died or stalled, and they are being given back.
    public var expiredJobLeases = 0
    /// Students' erasure requests pending (neither cancelled nor carried out), the earliest due
    /// instant among them, and how many fell due more than `AppDatabase.erasureRequestLateAfter`
    /// ago: the automatic erasure is failing (DESIGN §16).
    public var erasureRequestsPending = 0
    public var earliestErasureDueAt: Date?
    public var erasureRequestsLate = 0

    /// Nothing: the facts of an empty (or absent) database.
    public init() {}

    /// Total overdue submissions.
    public var overdue: Int { overdueByCoach.values.reduce(0, +) }
}
