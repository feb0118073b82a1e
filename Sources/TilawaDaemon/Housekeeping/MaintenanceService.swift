import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TilawaStore

/// Start-up and daily housekeeping: the artifact sweep (staging leftovers, orphans,
/// originals past retention, missing files), expired idempotency keys, abandoned jobs.
public struct MaintenanceService: Service {
    let runtime: TilawaRuntime
    let interval: Duration
    let logger: Logger
    /// Work the HTTP side leaves for the start (resumable uploads a dead process was judging).
    let recover: @Sendable () async -> Void

    /// Creates the service; `interval` defaults to a day.
    public init(runtime: TilawaRuntime, interval: Duration = .seconds(86_400), logger: Logger,
                recover: @escaping @Sendable () async -> Void = {}) {
        self.runtime = runtime
        self.interval = interval
        self.logger = logger
        self.recover = recover
    }

    /// The start-up pass, run before the daemon takes requests: nothing of this daemon
    /// is running yet, so in-flight idempotency keys and running jobs of dead processes are
    /// abandoned work (another node's stay its own). Only cheap steps: the walk of every
    /// artifact file is `run()`'s, after READY, so a large installation starts in a moment.
    public static func startUp(runtime: TilawaRuntime, logger: Logger) throws {
        let requeued = try runtime.database.requeueAbandonedJobs(isAlive: EncodeJobRunner.isAlive)
        let keys = try runtime.database.releaseAbandonedIdempotencyKeys(isAlive: EncodeJobRunner.isAlive)
            + runtime.database.expireIdempotencyKeys(
                now: runtime.clock(), retention: runtime.configuration.idempotencyRetention, includingInFlight: false)
        let staging = sweeper(runtime: runtime).removeStagingLeftovers(now: runtime.clock())
        logger.info("start-up", metadata: [
            "requeued_jobs": "\(requeued)", "expired_keys": "\(keys)", "staging_removed": "\(staging)",
        ])
    }

    /// Resumable uploads past their expiry go with their bytes; files in `uploads/` no
    /// unfinished upload owns (left by a crash between a row's deletion and its file's) too.
    static func sweepResumableUploads(runtime: TilawaRuntime, logger: Logger) async throws {
        let now = runtime.clock()
        let staging = runtime.stateDirectory.uploadStaging
        let expired = try await runtime.database.deleteExpiredUploads(now: now)
        for upload in expired { staging.remove(id: upload.id) }
        let keep = try await runtime.database.unfinishedUploadIds()
        let strays = staging.sweep(keeping: keep, changedBefore: Date().addingTimeInterval(-3_600))
        logger.info("resumable uploads swept", metadata: ["expired": "\(expired.count)", "stray_files": "\(strays)"])
    }

    static func sweeper(runtime: TilawaRuntime) -> ArtifactSweeper {
        ArtifactSweeper(database: runtime.database, stateDirectory: runtime.stateDirectory)
    }

    /// The full sweep (staging leftovers, orphans, originals past retention, missing files) on
    /// a thread of its own: it walks every artifact file and reads every path a row holds, which
    /// takes seconds on a large installation and must not hold a thread of the concurrency pool.
    /// Safe beside live uploads: the sweeper leaves files younger than its grace period alone.
    /// Graceful shutdown stops it between two files (`SweepInterrupted`), so a stop never
    /// waits for a walk of a million rows.
    func sweepInTheBackground() async throws -> SweepReport {
        let runtime = runtime
        let retentionDays = Int(runtime.configuration.storage.originalsRetention / 86_400)
        let stopping = StopRequest()
        return try await withGracefulShutdownHandler {
            try await OwnThread.run {
                try Self.sweeper(runtime: runtime).sweep(now: runtime.clock(), originalsRetentionDays: retentionDays,
                                                         isStopping: { stopping.isRequested })
            }
        } onGracefulShutdown: {
            stopping.request()
        }
    }

    /// The full sweep now (the start-up one), then daily with the expiry of idempotency keys.
    public func run() async throws {
        await recover()
        var label = "start-up sweep"
        while !Task.isShuttingDownGracefully {
            do {
                try await Self.sweepResumableUploads(runtime: runtime, logger: logger)
                let report = try await sweepInTheBackground()
                logger.info("\(label)", metadata: [
                    "orphans_removed": "\(report.orphansRemoved)", "originals_pruned": "\(report.originalsPruned)",
                    "staging_removed": "\(report.stagingRemoved)", "missing_files": "\(report.missingCount)",
                ])
                for path in report.missing.prefix(20) {
                    logger.error("artifact file missing", metadata: ["path": "\(path)"])
                }
                try await runtime.database.expireIdempotencyKeys(
                    now: runtime.clock(), retention: runtime.configuration.idempotencyRetention, includingInFlight: false)
                if let months = runtime.configuration.storage.retentionMonthsAfterSemester {
                    let runtime = runtime
                    let plan = try await OwnThread.run {
                        let plan = try runtime.database.applyRetention(months: months, now: runtime.clock(), dryRun: false)
                        for path in plan.files { runtime.stateDirectory.artifactStore.remove(path) }
                        return plan
                    }
                    if !plan.submissions.isEmpty {
                        logger.notice("retention: audio removed", metadata: ["recordings": "\(plan.submissions.count)", "files": "\(plan.files.count)"])
                    }
                }
            } catch is SweepInterrupted {
                logger.info("\(label) interrupted by shutdown")
                return
            } catch {
                logger.error("\(label) failed", metadata: ["error": "\(error)"])
            }
            label = "daily sweep"
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }
}
