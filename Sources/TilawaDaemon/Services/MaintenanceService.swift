import Foundation
import Logging
import ServiceLifecycle
import TilawaStore

/// Start-up and daily housekeeping: the artifact sweep (staging leftovers, orphans,
/// originals past retention, missing files), expired idempotency keys, abandoned jobs.
public struct MaintenanceService: Service {
    let runtime: TilawaRuntime
    let interval: Duration
    let logger: Logger

    /// Creates the service; `interval` defaults to a day.
    public init(runtime: TilawaRuntime, interval: Duration = .seconds(86_400), logger: Logger) {
        self.runtime = runtime
        self.interval = interval
        self.logger = logger
    }

    /// The start-up pass, run before the daemon takes requests: nothing of this daemon
    /// is running yet, so in-flight idempotency keys and running jobs of dead processes are
    /// abandoned work.
    public static func startUp(runtime: TilawaRuntime, logger: Logger) throws {
        let requeued = try runtime.database.requeueAbandonedJobs(isAlive: EncodeJobRunner.isAlive)
        let keys = try runtime.database.expireIdempotencyKeys(
            now: runtime.clock(), retention: runtime.configuration.idempotencyRetention, includingInFlight: true)
        let report = try sweep(runtime: runtime)
        logger.info("start-up sweep", metadata: [
            "requeued_jobs": "\(requeued)", "expired_keys": "\(keys)", "staging_removed": "\(report.stagingRemoved)",
            "orphans_removed": "\(report.orphansRemoved)", "originals_pruned": "\(report.originalsPruned)",
            "missing_files": "\(report.missing.count)",
        ])
        for path in report.missing.prefix(20) {
            logger.error("artifact file missing", metadata: ["path": "\(path)"])
        }
    }

    static func sweep(runtime: TilawaRuntime) throws -> SweepReport {
        let retentionDays = Int(runtime.configuration.storage.originalsRetention / 86_400)
        return try ArtifactSweeper(database: runtime.database, stateDirectory: runtime.stateDirectory)
            .sweep(now: runtime.clock(), originalsRetentionDays: retentionDays)
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            do {
                let report = try Self.sweep(runtime: runtime)
                try runtime.database.expireIdempotencyKeys(
                    now: runtime.clock(), retention: runtime.configuration.idempotencyRetention, includingInFlight: false)
                logger.info("daily sweep", metadata: [
                    "orphans_removed": "\(report.orphansRemoved)", "originals_pruned": "\(report.originalsPruned)",
                    "missing_files": "\(report.missing.count)",
                ])
            } catch {
                logger.error("daily sweep failed", metadata: ["error": "\(error)"])
            }
        }
    }
}

/// Tells systemd the daemon is stopping as soon as graceful shutdown begins (it is the
/// last service in the group, so the first to hear of it).
public struct ShutdownAnnouncer: Service {
    let notifier: SystemdNotifier?
    let logger: Logger

    public init(notifier: SystemdNotifier?, logger: Logger) {
        self.notifier = notifier
        self.logger = logger
    }

    public func run() async throws {
        try? await gracefulShutdown()
        logger.info("shutting down")
        try? notifier?.stopping()
    }
}
