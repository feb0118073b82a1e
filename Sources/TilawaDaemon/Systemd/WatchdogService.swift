import Logging
import ServiceLifecycle

/// Pings systemd's watchdog (`WATCHDOG=1`) while the daemon is healthy, until graceful shutdown.
///
/// Every `interval` (half of `WatchdogSec=`, see ``SystemdNotifier/watchdogInterval(environment:processID:)``)
/// it asks the health probe and pings only when the probe says yes. A daemon that is up
/// but useless — the database stopped answering, the probe hangs — therefore stops pinging,
/// and systemd kills and restarts it (`Restart=on-failure`).
///
/// When the watchdog is off (no `$NOTIFY_SOCKET`, no or foreign `$WATCHDOG_USEC`), `run()`
/// does nothing but wait for graceful shutdown: a service that returns early ends a
/// `ServiceGroup` (its default `successTerminationBehavior` is `.cancelGroup`), so this one
/// can be added unconditionally.
///
/// A failed ping (the socket gone, say) is logged and the loop goes on: the watchdog
/// exists to detect a sick daemon, it must not make a healthy one exit.
///
/// Place it first among the group's services so it stops last, after the HTTP server and the
/// workers have drained; systemd itself stops watching once the service is stopping.
public struct WatchdogService: Service {
    /// Answers whether the daemon can do its work (e.g. the database answers a query).
    ///
    /// Keep it quick and cancellable: the next ping waits for it, and so does shutdown when
    /// it is in flight.
    public typealias HealthProbe = @Sendable () async -> Bool

    /// Where pings go; nil when not run by systemd.
    public let notifier: SystemdNotifier?
    /// Time between pings; nil when the watchdog is off.
    public let interval: Duration?
    private let logger: Logger
    private let isHealthy: HealthProbe

    /// A watchdog pinging `notifier` every `interval` while `isHealthy` says yes.
    ///
    /// With either `notifier` or `interval` nil the service is disabled and only waits for shutdown.
    public init(notifier: SystemdNotifier?, interval: Duration?, logger: Logger, isHealthy: @escaping HealthProbe = { true }) {
        self.notifier = notifier
        self.interval = interval
        self.logger = logger
        self.isHealthy = isHealthy
    }

    /// A watchdog configured from systemd's variables (`$NOTIFY_SOCKET`, `$WATCHDOG_USEC`, `$WATCHDOG_PID`).
    public init(environment: [String: String], logger: Logger, isHealthy: @escaping HealthProbe = { true }) {
        self.init(
            notifier: SystemdNotifier(environment: environment),
            interval: SystemdNotifier.watchdogInterval(environment: environment),
            logger: logger,
            isHealthy: isHealthy)
    }

    /// Whether pings will be sent at all.
    public var isEnabled: Bool { notifier != nil && interval != nil }

    /// Pings until graceful shutdown (or cancellation), then returns.
    public func run() async throws {
        guard let notifier, let interval else {
            logger.debug("systemd watchdog off")
            // Returning now would read as a failure to the ServiceGroup; wait for our turn to stop.
            // Cancellation ends the wait as well, and the group is then tearing down anyway.
            try? await gracefulShutdown()
            return
        }
        logger.info("systemd watchdog on", metadata: ["interval": "\(interval)", "socket": "\(notifier.socketPath)"])

        var wasHealthy = true
        var pingFailed = false
        for await _ in WatchdogTicks(interval: interval).cancelOnGracefulShutdown() {
            let healthy = await isHealthy()
            if healthy != wasHealthy {
                if healthy {
                    logger.notice("health probe passes again; resuming watchdog pings")
                } else {
                    logger.error("health probe failed; withholding watchdog pings so systemd restarts the daemon")
                }
                wasHealthy = healthy
            }
            guard healthy else { continue }
            do {
                try notifier.watchdog()
                if pingFailed {
                    logger.notice("watchdog ping delivered again")
                    pingFailed = false
                }
            } catch {
                // Log the first failure of a run, not every tick.
                if !pingFailed {
                    logger.warning("watchdog ping failed", metadata: ["error": "\(error)", "code": "\(error.code)"])
                    pingFailed = true
                }
            }
        }
        logger.debug("systemd watchdog stopped")
    }
}
