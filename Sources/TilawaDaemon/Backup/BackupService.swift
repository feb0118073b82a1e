import Foundation
import Logging
import ServiceLifecycle
import TilawaStore

/// Scheduled backups (`backup.dir`): every `interval` it asks whether one is due and, if so,
/// makes and verifies it on a thread of its own (it reads and writes every file; it must not
/// hold a thread of the concurrency pool). A failed run is logged and tried again next time.
public struct BackupService: Service {
    let runtime: TilawaRuntime
    let interval: Duration
    let logger: Logger

    public init(runtime: TilawaRuntime, interval: Duration = .seconds(60), logger: Logger) {
        self.runtime = runtime
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        guard let directory = runtime.configuration.backup.dir else {
            // A service that returns ends the group: without a schedule, wait for the stop.
            try? await gracefulShutdown()
            return
        }
        let schedule = BackupSchedule(database: runtime.database, stateDirectory: runtime.stateDirectory, directory: directory,
                                      everyHours: runtime.configuration.backup.everyHours, keep: runtime.configuration.backup.keep)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let now = runtime.clock()
            let started = Date()
            do {
                // Minutes of file copying and a filesystem flush: never on the concurrency pool.
                let outcome = try await OwnThread.run { try schedule.runIfDue(now: now) }
                if let outcome {
                    logger.info("backup made", metadata: [
                        "path": "\(outcome.path)", "files": "\(outcome.report.files)", "bytes_copied": "\(outcome.report.bytes)",
                        "linked": "\(outcome.report.linked)", "seconds": "\(String(format: "%.1f", Date().timeIntervalSince(started)))",
                        "removed": "\(outcome.removed.count)",
                    ])
                    for path in outcome.report.missing { logger.error("backup: file missing from the state directory", metadata: ["path": "\(path)"]) }
                }
            } catch {
                logger.error("backup failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }
}
