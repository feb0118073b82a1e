import Foundation

/// When each check of `tilawa status` turns WARNING or CRITICAL (Nagios plugin semantics).
///
/// | state    | exit | when                                                                        |
/// |----------|------|-----------------------------------------------------------------------------|
/// | OK       | 0    | every check passes                                                          |
/// | WARNING  | 1    | a submission awaits feedback longer than `program.feedback_due_hours`;      |
/// |          |      | the oldest undelivered notification is older than 10 minutes (only when     |
/// |          |      | `webhook.url` is set: without it events stay in the outbox for the feed);   |
/// |          |      | an encode job has failed; the drop folder rejected a file in the last 24 h; |
/// |          |      | disk free < 15 %; the daemon is down or not ready without `--expect-running`;|
/// |          |      | a student's erasure request is more than a day past its due instant         |
/// | CRITICAL | 2    | the daemon is down or not ready with `--expect-running`; disk free < 5 %;   |
/// |          |      | a row of the last 7 days points to a missing artifact file, or the daemon's |
/// |          |      | last full sweep found one; the store artifacts are kept in does not answer  |
/// |          |      | the daemon (`artifact_store`: an S3 store leaves it serving, `degraded`)    |
/// | UNKNOWN  | 3    | the state directory cannot be read; the database cannot be opened or read   |
/// |          |      | (corrupt, not a database); the disk cannot be examined; `tilawa status`     |
/// |          |      | itself cannot run (bad configuration)                                       |
///
/// The overall state is the worst check, ranked OK < WARNING < UNKNOWN < CRITICAL. A state
/// directory or database that does not exist yet is an empty installation, not an error.
public struct StatusThresholds: Sendable, Equatable {
    /// Disk free below this percentage of the filesystem is WARNING (default 15).
    public var diskWarningPercent: Double = 15
    /// Disk free below this percentage is CRITICAL (default 5).
    public var diskCriticalPercent: Double = 5
    /// An undelivered notification older than this is WARNING (default 10 minutes).
    public var notificationAge: TimeInterval = 600
    /// Rows received this far back have their artifact files checked on every report (7 days).
    public var recentArtifactWindow: TimeInterval = 7 * 86_400

    /// The defaults above.
    public init() {}
}
