import Foundation
import Logging
import ServiceLifecycle
import TilawaCore
import TilawaStore

/// Records what the clock alone decides, once each, checked every minute:
/// `feedback_overdue` for submissions past their `feedbackDueAt`, `eoc_available` for
/// eligible students once their level's end-of-course assessment opens, and the calendar's
/// `week_unlocked` and `deadline_reminder`s (`NotificationSchedule`). Each is keyed in the
/// database, so a restart, a step of the clock or a tick that runs late sends nothing twice.
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
                let notices = try await runtime.database.recordScheduledNotices(policy: runtime.policy, now: now)
                if notices > 0 {
                    logger.info("scheduled notifications recorded", metadata: ["count": "\(notices)"])
                    wakeup?.signal()
                }
            } catch {
                logger.error("overdue check failed", metadata: ["error": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }
}
