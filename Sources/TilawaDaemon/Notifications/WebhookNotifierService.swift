import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import TilawaCore
import TilawaStore

/// Delivers the outbox to the configured webhook until graceful shutdown (DESIGN §7).
///
/// Each event is POSTed as `application/json` — the stored payload bytes, unchanged — with
/// `Tilawa-Signature` (see `WebhookSignature`), `Tilawa-Event-Id`, `Tilawa-Event-Type` and
/// `User-Agent: tilawa`. A 2xx marks it delivered; anything else (another status, a
/// redirect, a timeout, a refused connection, a DNS failure) counts an attempt and schedules
/// the next by `WebhookBackoff`. Delivery is at least once: the event is marked only after
/// the 2xx, so a crash between the two sends it again, and receivers de-duplicate by
/// `Tilawa-Event-Id`. The outbox is the only state, so nothing is lost across restarts.
///
/// One student's events go strictly in order — the next is taken only once the one before
/// is delivered (`AppDatabase.dueEvents(now:limit:)`) — while different students' events are
/// sent concurrently, at most `Options.concurrency` at a time. The service wakes when the
/// daemon signals `wakeup` after recording an event, and polls every `Options.pollInterval`
/// for retries that fall due and events written by other processes (`tilawa ingest`).
///
/// Without an endpoint it idles until shutdown; events stay in the outbox and in the
/// `/v1/students/{id}/events` feed, and go out once a URL is configured. On graceful shutdown
/// it takes no new event and lets the POSTs in flight finish or time out.
public struct WebhookNotifierService: Service {
    /// Timing and fan-out.
    public struct Options: Sendable {
        /// `webhook.timeout_seconds`: the longest one POST may take to answer, connection included.
        public var timeout: TimeInterval
        /// `webhook.max_backoff_seconds`: the longest wait between two tries.
        public var maxBackoff: TimeInterval
        /// The waits after each failure before the spread and the cap (`WebhookBackoff.standardSchedule`).
        public var schedule: [TimeInterval] = WebhookBackoff.standardSchedule
        /// Students whose events are sent at the same time.
        public var concurrency = 4
        /// How often the outbox is read without a wake-up.
        public var pollInterval: Duration = .seconds(1)

        /// The programme's quiet hours (`notifications.quiet_hours`; a student's own win), in
        /// each student's zone, else `programmeZone`: a student's push waits them out
        /// (`AppDatabase.holdForQuietHours`). Nil: nothing waits but for a student's own.
        public var quietHours: NotificationSchedule.QuietHours?
        public var programmeZone = TimeZone.gmt
        /// How the log names the student or coach of an event's queue (`student:s_…`); by
        /// default under a key of this process only, so that no id is logged unasked.
        public var pseudonyms = LogPseudonyms.ephemeral

        /// The options `webhook` configures, the rest at their defaults.
        public init(webhook: TilawaConfiguration.Webhook = .init(), pollInterval: Duration = .seconds(1)) {
            timeout = webhook.timeout
            maxBackoff = webhook.maxBackoff
            self.pollInterval = pollInterval
        }
    }

    let database: AppDatabase
    let endpoint: WebhookEndpoint?
    let options: Options
    let wakeup: WakeupSignal
    let metrics: TilawaMetrics
    let clock: @Sendable () -> Date
    let logger: Logger

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - endpoint: Where to deliver; nil to keep events in the outbox only.
    ///   - wakeup: Signalled by the daemon after it records an event.
    ///   - clock: "Now" for due times, backoff and the signature's timestamp.
    public init(database: AppDatabase, endpoint: WebhookEndpoint?, options: Options = Options(), wakeup: WakeupSignal,
                metrics: TilawaMetrics, clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.database = database
        self.endpoint = endpoint
        var options = options
        options.concurrency = max(1, options.concurrency)
        self.options = options
        self.wakeup = wakeup
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
    }

    /// Delivers until graceful shutdown (or idles, without an endpoint), then shuts the client down.
    public func run() async throws {
        guard let endpoint else {
            logger.info("webhook not configured; notifications stay in the outbox and the events feed")
            // Returns at graceful shutdown; throws only when cancelled, which also means stop.
            try? await gracefulShutdown()
            return
        }
        logger.info("webhook notifier started", metadata: [
            "host": "\(endpoint.url.host ?? "?")", "concurrency": "\(options.concurrency)",
            "timeout_seconds": "\(options.timeout)", "max_backoff_seconds": "\(options.maxBackoff)",
        ])
        // One client for the service's lifetime: its connection pool keeps the receiver's
        // connections open between deliveries.
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
        await deliverUntilShutdown(client: client, endpoint: endpoint)
        do {
            try await client.shutdown()
        } catch {
            // Every delivery has ended and been recorded; a client that shuts down untidily
            // must not turn a clean stop into a failed one.
            logger.warning("webhook client shut down with an error", metadata: ["error": "\(error)"])
        }
    }

    /// What the delivery loop hears: time to look at the outbox, or a queue's POST is over.
    private enum Signal: Sendable {
        case tick
        case finished(queue: String)
    }

    /// Starts due events as slots free up, one per recipient queue at a time (so each
    /// recipient gets theirs in order), until graceful shutdown;
    /// returns once the POSTs in flight are over.
    private func deliverUntilShutdown(client: HTTPClient, endpoint: WebhookEndpoint) async {
        let (signals, continuation) = AsyncStream.makeStream(of: Signal.self)
        await withDiscardingTaskGroup { group in
            // The pacemaker: a tick at start, on every wake-up and every poll interval; at
            // graceful shutdown it ends the stream, which ends the loop below.
            group.addTask { [wakeup, options] in
                while !Task.isShuttingDownGracefully && !Task.isCancelled {
                    continuation.yield(.tick)
                    await cancelWhenGracefulShutdown { await wakeup.wait(timeout: options.pollInterval) }
                }
                continuation.finish()
            }
            // Only this loop touches `inFlight`: the queues with a POST under way.
            var inFlight: Set<String> = []
            for await signal in signals {
                if case let .finished(queue) = signal { inFlight.remove(queue) }
                guard !Task.isShuttingDownGracefully else { continue }
                for event in nextEvents(excluding: inFlight) {
                    // Another node may be sending this head of its queue (a shared database).
                    guard await claim(event) else { continue }
                    // The stop may have begun while the claim was written: no POST starts after it.
                    guard !Task.isShuttingDownGracefully else {
                        await unclaim(event)
                        break
                    }
                    inFlight.insert(event.queue)
                    group.addTask {
                        await deliver(event, client: client, endpoint: endpoint)
                        continuation.yield(.finished(queue: event.queue))
                    }
                }
                recordBacklog()
            }
        }
    }

    /// Claims `event` for this node for its POST (and a margin); false while another node's claim holds.
    func claim(_ event: EventRecord) async -> Bool {
        guard let seq = event.seq else { return false }
        let until = Date().addingTimeInterval(options.timeout + AppDatabase.eventClaimMargin)
        do {
            return try await database.claimEvent(seq: seq, sender: EncodeJobRunner.workerIdentity, until: until)
        } catch {
            logger.error("cannot claim an event to send", metadata: ["event": "\(event.id)", "error": "\(error)"])
            return false
        }
    }

    /// Gives back a claim this node will not use (another node need not wait it out).
    private func unclaim(_ event: EventRecord) async {
        guard let seq = event.seq else { return }
        try? await database.releaseEventClaim(seq: seq, sender: EncodeJobRunner.workerIdentity)
    }

    /// Due heads of queues without a POST in flight, as many as there are free slots.
    private func nextEvents(excluding inFlight: Set<String>) -> [EventRecord] {
        let free = options.concurrency - inFlight.count
        guard free > 0 else { return [] }
        do {
            guard try database.webhookDisabled() == nil else { return [] }
            // The heads of the queues in flight are still undelivered and may be due: ask
            // for enough to fill the free slots after skipping them.
            let now = clock()
            let due = try database.dueEvents(now: now, limit: options.concurrency + inFlight.count)
                .filter { !inFlight.contains($0.queue) }
            // No push at night: a student's push inside their quiet hours waits for their end.
            let held = try database.holdForQuietHours(due, programme: options.quietHours, programmeZone: options.programmeZone, now: now)
            return Array(due.lazy.filter { !held.contains($0.seq ?? -1) }.prefix(free))
        } catch {
            logger.error("cannot read the outbox", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func recordBacklog() {
        do {
            metrics.recordOutbox(try database.undeliveredSummary(now: clock()))
        } catch {
            logger.error("cannot count undelivered notifications", metadata: ["error": "\(error)"])
        }
    }
}
