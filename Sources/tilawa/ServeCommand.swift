import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import TilawaDaemon

/// `tilawa serve`: the daemon — HTTP API, encode workers, housekeeping, systemd integration.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the daemon: HTTP API, encode workers, drop-folder watcher, notifier.",
        discussion: "Exit status: 0 after a clean shutdown (SIGTERM or SIGINT), 78 bad configuration, 69 cannot listen."
    )

    @OptionGroup var config: ConfigurationOptions

    func run() async throws {
        let configuration = try config.load()
        let environment = ProcessInfo.processInfo.environment
        let level = Logger.Level(rawValue: configuration.logLevel.rawValue) ?? .info
        // Timestamps only when not under journald (which stamps every line itself).
        let timestamps = environment["JOURNAL_STREAM"] == nil
        LoggingSystem.bootstrap { label in LogfmtHandler(label: label, level: level, timestamps: timestamps) }
        let logger = Logger(label: "tilawa")

        let runtime: TilawaRuntime
        let authority: TokenAuthority
        let webhook: WebhookEndpoint?
        do {
            runtime = try TilawaRuntime(configuration: configuration)
            // Read now, so a URL whose secret cannot be read stops start-up (exit 78) naming the key.
            webhook = try WebhookEndpoint.configured(in: configuration)
            authority = try await TokenAuthority(configuration: configuration)
            try MaintenanceService.startUp(runtime: runtime, logger: logger)
        } catch let error as ConfigurationError {
            throw CommandLineOutput.fail(code: error.code, message: error.description, exit: ExitStatus.configuration)
        } catch {
            throw CommandLineOutput.fail(error)
        }

        let startedAt = Date()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // Uploads are answered from `pool`; encode jobs and coach replies run on `background`,
        // at a lower CPU priority, so a student's answer never waits behind an encode.
        let pool = AudioWorkPool(threads: cores)
        let background = AudioWorkPool(threads: configuration.encodeWorkerCount(processorCount: cores), niceness: 10)
        let wakeup = WakeupSignal()
        let metrics = TilawaMetrics()
        let notifier = SystemdNotifier(environment: environment)
        let api = APIContext(runtime: runtime, pool: pool, wakeup: wakeup, metrics: metrics, authority: authority, startedAt: startedAt)
        let http = configuration.http
        let app = TilawaServer.makeApplication(api: api, logger: logger) { channel in
            let address = channel.localAddress.map { "\($0)" } ?? "\(http.host):\(http.port)"
            logger.info("listening", metadata: ["address": "\(address)", "state_dir": "\(configuration.stateDirectory)"])
            try? notifier?.ready(status: "Serving on \(address)")
        }
        let workers = EncodeWorkerService(
            runtime: runtime, pool: background, wakeup: wakeup, workers: configuration.encodeWorkerCount(processorCount: cores),
            metrics: metrics, logger: logger)
        let dropFolder = DropFolderService(runtime: runtime, pool: background, jobsWakeup: wakeup, logger: logger)
        let deadlines = FeedbackDeadlineService(runtime: runtime, notify: wakeup, logger: logger)
        let webhookNotifier = WebhookNotifierService(
            database: runtime.database, endpoint: webhook, options: .init(webhook: configuration.webhook), wakeup: wakeup,
            metrics: metrics, clock: runtime.clock, logger: logger)
        let database = runtime.database
        let watchdog = WatchdogService(environment: environment, logger: logger) { database.isResponsive() }

        // Started in this order, stopped in reverse: the announcer first (STOPPING=1), then the
        // HTTP server stops taking uploads, the notifier lets its POSTs in flight finish after
        // the services that record events, workers finish the job in hand, housekeeping last.
        let group = ServiceGroup(configuration: .init(
            services: [
                .init(service: MaintenanceService(runtime: runtime, logger: logger)),
                .init(service: workers),
                .init(service: webhookNotifier),
                .init(service: deadlines),
                .init(service: dropFolder),
                .init(service: watchdog),
                .init(service: app),
                .init(service: ShutdownAnnouncer(notifier: notifier, logger: logger)),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            await pool.shutdown()
            await background.shutdown()
            logger.error("daemon stopped on error", metadata: ["error": "\(error)"])
            throw CommandLineOutput.fail(code: "serve_failed", message: "\(error)", exit: ExitStatus.unavailable)
        }
        await pool.shutdown()
        await background.shutdown()
        logger.info("stopped")
    }
}
