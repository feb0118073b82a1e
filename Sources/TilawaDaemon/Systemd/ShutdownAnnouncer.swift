import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TilawaStore

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
