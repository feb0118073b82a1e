import Foundation
import Logging
import ServiceLifecycle
import TilawaCore
import TilawaStore

/// Records what the clock alone decides, once each, checked every minute:
/// `feedback_overdue` for submissions past their `feedbackDueAt`, `eoc_available` for
/// eligible students once their level's end-of-course assessment opens, the calendar's
/// `week_unlocked` and `deadline_reminder`s (`NotificationSchedule`), each coach's daily
/// `coach_digest`, and operations' `storage_low` (at most daily while the disk is low). Each
/// is keyed in the database, so a restart, a step of the clock or a tick that runs late
/// sends nothing twice.
public struct ProgrammeClockService: Service {
    let runtime: TilawaRuntime
    let wakeup: WakeupSignal?
    let interval: Duration
    let logger: Logger

    public init(runtime: TilawaRuntime, notify wakeup: WakeupSignal?, interval: Duration = .seconds(60), logger: Logger) {
        self.runtime = runtime
        self.wakeup = wakeup
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let now = runtime.clock()
                // Keys of requests that failed while the database was away, released now it is back.
                await runtime.database.retryPendingIdempotencyReleases()
                let count = try await runtime.database.recordOverdueFeedback(now: now, policy: runtime.policy)
                if count > 0 {
                    logger.warning("feedback overdue", metadata: ["submissions": "\(count)"])
                    wakeup?.signal()
                }
                let opened = try await runtime.database.recordEOCAvailable(policy: runtime.policy, now: now)
                if opened > 0 {
                    logger.info("end-of-course assessment open", metadata: ["students": "\(opened)"])
                    wakeup?.signal()
                }
                let behind = try await runtime.database.recordFallingBehind(now: now)
                if behind > 0 {
                    logger.info("students falling behind, coaches told", metadata: ["students": "\(behind)"])
                    wakeup?.signal()
                }
                let announced = try await runtime.database.publishDueAnnouncements(now: now)
                if announced > 0 {
                    logger.info("announcements published", metadata: ["events": "\(announced)"])
                    wakeup?.signal()
                }
                let notices = try await runtime.database.recordScheduledNotices(policy: runtime.policy, now: now)
                if notices > 0 {
                    logger.info("scheduled notifications recorded", metadata: ["count": "\(notices)"])
                    wakeup?.signal()
                }
                let zone = runtime.configuration.program.timeZone
                if let moment = runtime.policy.notificationSchedule.coachDigest {
                    let digests = try await runtime.database.recordCoachDigests(moment: moment, timeZone: zone, now: now)
                    if digests > 0 {
                        logger.info("coach digests recorded", metadata: ["coaches": "\(digests)"])
                        wakeup?.signal()
                    }
                }
                // Refusals answered to a completing request whose answer was never written.
                if try await runtime.database.recordOwedUploadRefusals(before: now.addingTimeInterval(-60), now: now) > 0 {
                    logger.notice("upload refusals the phone never received sent to their students")
                    wakeup?.signal()
                }
                if let storage = lowStorage(), try await runtime.database.recordStorageLow(
                    storage, timeZone: zone, now: now) {
                    logger.warning("storage low, operations told", metadata: ["free_bytes": "\(storage.freeBytes)"])
                    wakeup?.signal()
                }
            } catch {
                logger.error("programme clock check failed", metadata: ["error": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }

    /// The state directory's filesystem when less than `storage.low_free_bytes` is free; else nil.
    func lowStorage() -> EventPayload.StorageFacts? {
        let path = runtime.stateDirectory.root.path
        let threshold = Int64(runtime.configuration.storage.lowFreeBytes)
        guard threshold > 0, let free = DiskSpace.availableBytes(at: path), free < threshold,
              let total = DiskSpace.totalBytes(at: path), total > 0 else { return nil }
        return .init(freeBytes: free, totalBytes: total, minimumFreeBytes: Int64(runtime.configuration.storage.minFreeBytes))
    }
}
