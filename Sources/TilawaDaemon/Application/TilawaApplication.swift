import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import TilawaStore
import UnixSignals

/// The whole daemon as `tilawa serve` runs it — the one composition root: every service built
/// from one configuration and started in the documented order. Tests boot the same graph
/// in-process.
///
/// Started in this order, stopped in reverse: the worker pools (stopped last, once nothing
/// can hand them work), housekeeping, the encode workers, the notifier, the feedback
/// deadlines, the due erasure requests, the drop folder, the watchdog, the HTTP server, and the announcer (so a stop
/// says STOPPING=1 first, then the HTTP server stops taking uploads, the notifier lets its
/// POSTs in flight finish after the services that record events, and workers finish the job
/// in hand).
public struct TilawaApplication: Sendable {
    /// The shared parts (configuration, state directory, database, audio chain).
    public let runtime: TilawaRuntime
    /// What the HTTP handlers share (auth, metrics, pools).
    public let api: APIContext
    private let services: [any Service]
    private let logger: Logger
    /// Held while the application exists: one daemon per state directory.
    private let stateLock: StateDirectoryLock

    /// Builds every part; nothing runs yet.
    ///
    /// - Parameters:
    ///   - environment: the process environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, …).
    ///   - clock: "now" for every rule (tests move it).
    ///   - programmeTick: how often the programme clock's notices are checked (a minute; tests
    ///     with an accelerated clock check every programme minute).
    ///   - onListening: called with the bound address once the HTTP server listens (port 0 picks one).
    /// - Throws: `ConfigurationError` when a secret or key file cannot be used (exit 78), or
    ///   `StateDirectoryLock.Failure` when another daemon uses the state directory, or
    ///   what opening the state directory and database throws.
    public init(configuration: TilawaConfiguration, environment: [String: String], logger: Logger,
                clock: @escaping @Sendable () -> Date = { Date() }, programmeTick: Duration = .seconds(60),
                onListening: @escaping @Sendable (_ host: String, _ port: Int) -> Void = { _, _ in }) async throws {
        // Before anything touches the state directory: a second daemon would sweep the first
        // one's staged uploads at start-up.
        let state = StateDirectory(path: configuration.stateDirectory)
        try state.prepare()
        stateLock = try StateDirectoryLock.acquire(in: state)
        let runtime = try TilawaRuntime(configuration: configuration, clock: clock)
        // Read now, so a URL whose secret cannot be read stops start-up (exit 78) naming the key.
        let webhook = try WebhookEndpoint.configured(in: configuration)
        // Read now too: a key that cannot be read stops start-up naming push.apns.key_file
        // (push.fcm.service_account_file).
        var pushChannels: [any PushChannel] = []
        if let apns = configuration.apns { pushChannels.append(try APNsClient.make(apns)) }
        if let fcm = configuration.fcm { pushChannels.append(try FCMClient.make(fcm)) }
        // Read now too: a SCIM token that cannot be read, or is too short, stops start-up naming scim.token_file.
        let scimToken = try configuration.readSCIMToken()
        let authority = try await TokenAuthority(configuration: configuration)
        try MaintenanceService.startUp(runtime: runtime, logger: logger)
        try await Self.claimArtifactStore(runtime: runtime)
        try await Self.refuseOwnDiskAmongNodes(runtime: runtime)

        let cores = ProcessInfo.processInfo.activeProcessorCount
        let workerCount = configuration.encodeWorkerCount(processorCount: cores)
        // Uploads are answered from `pool`; encode jobs and coach replies run on `background`,
        // at a lower CPU priority, so a student's answer never waits behind an encode.
        let pool = AudioWorkPool(threads: cores)
        let background = AudioWorkPool(threads: workerCount, niceness: 10)
        let wakeup = WakeupSignal()
        let metrics = TilawaMetrics()
        let notifier = SystemdNotifier(environment: environment)
        let api = APIContext(runtime: runtime, pool: pool, wakeup: wakeup, metrics: metrics, authority: authority, startedAt: clock(),
                             scimToken: scimToken)
        let http = configuration.http
        let server = TilawaServer.makeApplication(api: api, logger: logger) { channel in
            let address = channel.localAddress.map { "\($0)" } ?? "\(http.host):\(http.port)"
            logger.info("listening", metadata: ["address": "\(address)", "state_dir": "\(configuration.stateDirectory)"])
            try? notifier?.ready(status: "Serving on \(address)")
            onListening(http.host, channel.localAddress?.port ?? http.port)
        }
        let database = runtime.database
        let fallbackPoll: Duration = database.engine.signalsOtherProcesses ? .seconds(5) : .seconds(1)
        var notifierOptions = WebhookNotifierService.Options(webhook: configuration.webhook, pollInterval: fallbackPoll)
        notifierOptions.quietHours = configuration.program.notificationSchedule.quietHours
        notifierOptions.programmeZone = configuration.program.timeZone
        notifierOptions.pseudonyms = runtime.pseudonyms
        var services: [any Service] = [
            AudioWorkPoolService(pools: [pool, background]),
            MaintenanceService(runtime: runtime, logger: logger) {
                // Judging takes no upload slot: the receiver is only there to complete the type.
                let receiver = UploadReceiver(stateDirectory: runtime.stateDirectory, maxBytes: http.maxUploadBytes,
                                              slots: UploadSlots(limit: http.maxConcurrentUploads, gauge: metrics.uploadsInFlight))
                await ResumableUploads(api: api, receiver: receiver, locks: api.uploadLocks).finishInterruptedCompletions(logger: logger)
            },
            ClusterSignalService(database: database, wakeup: wakeup, uploadLocks: api.uploadLocks, logger: logger),
            NodeHeartbeatService(database: database, logger: logger),
            // Woken by other nodes' signals on a shared database, they poll only as the fallback.
            EncodeWorkerService(runtime: runtime, pool: background, wakeup: wakeup, workers: workerCount, pollInterval: fallbackPoll,
                                metrics: metrics, logger: logger),
            WebhookNotifierService(database: database, endpoint: webhook, options: notifierOptions,
                                   wakeup: wakeup, metrics: metrics, clock: clock, logger: logger),
            ProgrammeClockService(runtime: runtime, notify: wakeup, interval: programmeTick, logger: logger),
            ErasureRequestService(runtime: runtime, interval: programmeTick, logger: logger),
            DropFolderService(runtime: runtime, pool: background, jobsWakeup: wakeup, logger: logger),
            BackupService(runtime: runtime, logger: logger),
            WatchdogService(environment: environment, logger: logger) { await database.isResponsive() },
            server,
            ShutdownAnnouncer(notifier: notifier, logger: logger),
        ]
        if !pushChannels.isEmpty {
            var pushOptions = PushService.Options()
            pushOptions.quietHours = configuration.program.notificationSchedule.quietHours
            pushOptions.programmeZone = configuration.program.timeZone
            pushOptions.pollInterval = fallbackPoll
            services.insert(PushService(database: database, channels: pushChannels, options: pushOptions, wakeup: wakeup, metrics: metrics,
                                        clock: clock, logger: logger, pseudonyms: runtime.pseudonyms),
                            at: services.count - 2)  // before the server and the announcer
        }
        self.services = services
        self.runtime = runtime
        self.api = api
        self.logger = logger
    }

    /// The service group, stopping gracefully on `signals` (none in tests: they trigger it).
    public func serviceGroup(gracefulShutdownSignals signals: [UnixSignal] = []) -> ServiceGroup {
        ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, gracefulShutdownSignals: signals, logger: logger))
    }
}

extension TilawaApplication {
    /// With artifacts in an S3 store: claims its prefix for this installation, or refuses to
    /// start (78) when another installation holds it — its objects would look like orphans to
    /// this one's sweep. A store that cannot be reached is not refused here: `/readyz` says so.
    /// A PostgreSQL database another host's node uses, with this node's artifacts on its own
    /// disk (`artifacts.url: file:`): neither node could read the other's recordings. Refused
    /// at start-up when a node of another host said it was alive within the last three
    /// heartbeats. (Nodes of one host share its disk only if they share a state directory,
    /// which its lock forbids; several nodes need `s3://` or a `file:///` directory they all mount.)
    static func refuseOwnDiskAmongNodes(runtime: TilawaRuntime) async throws {
        let artifacts = runtime.configuration.artifacts
        guard runtime.database.engine.isShared, artifacts.s3Location == nil, artifacts.directory == nil else { return }
        let host = ProcessInfo.processInfo.hostName
        let seen = try await runtime.database.nodesSeen(since: Date().addingTimeInterval(-3 * AppDatabase.nodeHeartbeat))
        guard let other = seen.first(where: { !$0.hasSuffix("@" + host) }) else { return }
        throw ConfigurationError(key: "artifacts.url", message: """
            is file: (this node's own disk) while node \(other) uses the same PostgreSQL database: neither could read the \
            other's recordings; give every node artifacts.url: s3://bucket/prefix (or file:///path on a filesystem they all mount)
            """)
    }

    static func claimArtifactStore(runtime: TilawaRuntime) async throws {
        let storage = runtime.stateDirectory.artifactStore.storage
        let database = runtime.database, now = runtime.clock()
        let other: String?
        do {
            other = try await OwnThread.run { try storage.claim { try database.installationId(now: now) } }
        } catch {
            return
        }
        if let other {
            throw ConfigurationError(key: "artifacts.url", message: """
                \(storage.description) holds another installation's artifacts (\(other)); this database is \
                \(try database.installationId(now: now)): give each installation a prefix of its own
                """)
        }
    }
}
