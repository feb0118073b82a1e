import Foundation
import Logging
import ServiceLifecycle
import TilawaCore
import TilawaStore

/// Records `feedback_overdue` for submissions past their feedback deadline, once each,
/// checked every minute.
public struct FeedbackDeadlineService: Service {
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
                let count = try await runtime.database.recordOverdueFeedback(now: runtime.clock(), due: runtime.configuration.program.feedbackDue)
                if count > 0 {
                    logger.warning("feedback overdue", metadata: ["submissions": "\(count)"])
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
