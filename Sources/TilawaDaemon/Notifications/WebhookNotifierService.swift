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
    private func claim(_ event: EventRecord) async -> Bool {
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

    /// POSTs one event and records the outcome in the outbox.
    private func deliver(_ event: EventRecord, client: HTTPClient, endpoint: WebhookEndpoint) async {
        guard let seq = event.seq else { return }
        let attempt = event.attempts + 1
        var metadata: Logger.Metadata = [
            "event": "\(event.id)", "type": "\(event.type)", "queue": "\(options.pseudonyms.tagged(event.queue))", "attempt": "\(attempt)",
        ]
        // Claimed again just before the POST: a node that stalled since its claim (stopped,
        // frozen) past the claim's end may find the event sent by another node meanwhile, and
        // later ones after it; sending it now would break the recipient's order.
        guard await claim(event) else {
            logger.notice("webhook left to another node: the claim ran out before the POST", metadata: metadata)
            return
        }
        switch await post(event, client: client, endpoint: endpoint) {
        case let .delivered(status):
            metrics.countWebhookDelivery(outcome: "delivered")
            metadata["status"] = "\(status)"
            do {
                try await database.markDelivered(seq: seq, now: clock())
            } catch {
                // Still undelivered in the outbox, so it will be sent again (receivers
                // de-duplicate); wait a poll interval so a failing database is not a busy loop.
                metadata["error"] = "\(error)"
                logger.error("webhook delivered but not recorded; it will be sent again", metadata: metadata)
                try? await Task.sleep(for: options.pollInterval)
                return
            }
            if attempt > 1 {
                logger.info("webhook delivered after retries", metadata: metadata)
            } else {
                logger.debug("webhook delivered", metadata: metadata)
            }
        case let .failed(failure):
            // Cancelled (a hard stop, not a graceful one): the event stays as it was and goes
            // out at the next start rather than counting an attempt it did not get.
            guard !Task.isCancelled else { return }
            metrics.countWebhookDelivery(outcome: "failed")
            var delay = WebhookBackoff.delay(
                attempt: attempt, cap: options.maxBackoff, random: Double.random(in: 0..<1), schedule: options.schedule)
            // A receiver that says when to come back is believed (up to a day: a larger value
            // is more likely a mistake than a plan).
            if let retryAfter = failure.retryAfter { delay = max(delay, min(retryAfter, 86_400)) }
            if failure.status == 410 {
                // Gone: the receiver says this URL will never take events again. Retrying every
                // hour forever helps nobody; deliveries stop (status goes CRITICAL) until an
                // operator runs `tilawa events redeliver`.
                try? await database.disableWebhook(reason: "the receiver answered 410 Gone to event \(event.id)", at: clock())
                logger.error("webhook receiver is gone (410); deliveries are off until `tilawa events redeliver`", metadata: metadata)
            }
            if let status = failure.status { metadata["status"] = "\(status)" }
            metadata["error"] = "\(failure.message)"
            metadata["retry_in_seconds"] = "\(Int(delay.rounded()))"
            logger.warning("webhook delivery failed", metadata: metadata)
            do {
                try await database.markFailed(seq: seq, error: failure.description, nextAttemptAt: clock().addingTimeInterval(delay),
                                              sender: EncodeJobRunner.workerIdentity)
            } catch {
                logger.error("cannot record a failed webhook delivery", metadata: ["event": "\(event.id)", "error": "\(error)"])
                try? await Task.sleep(for: options.pollInterval)
            }
        }
    }

    private enum Outcome {
        case delivered(status: Int)
        case failed(DeliveryFailure)
    }

    /// One POST of `event`'s stored payload with its headers.
    private func post(_ event: EventRecord, client: HTTPClient, endpoint: WebhookEndpoint) async -> Outcome {
        var request = HTTPClientRequest(url: endpoint.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let timestamp = Int64(clock().timeIntervalSince1970.rounded(.down))
        request.headers.add(
            name: WebhookSignature.headerName,
            value: WebhookSignature.header(body: event.payload, secrets: endpoint.secrets, timestamp: timestamp))
        for (name, value) in StandardWebhookSignature.headers(id: event.id, body: event.payload, secrets: endpoint.secrets, timestamp: timestamp) {
            request.headers.add(name: name, value: value)
        }
        request.headers.add(name: "Tilawa-Event-Id", value: event.id)
        request.headers.add(name: "Tilawa-Event-Type", value: event.type)
        request.headers.add(name: "User-Agent", value: "tilawa")
        request.body = .bytes(ByteBuffer(bytes: event.payload))
        do {
            let response = try await client.execute(request, timeout: timeAmount(options.timeout))
            let status = Int(response.status.code)
            // Read the answer so the connection can be reused, keeping the start for the log.
            let excerpt = await Self.excerpt(of: response.body)
            if (200..<300).contains(status) { return .delivered(status: status) }
            var failure = DeliveryFailure(status: status, message: excerpt.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(excerpt)")
            if status == 429 || status == 503 {
                failure.retryAfter = DeliveryFailure.retryAfter(response.headers.first(name: "Retry-After"), now: clock())
            }
            return .failed(failure)
        } catch {
            return .failed(DeliveryFailure(status: nil, message: describe(error)))
        }
    }

    /// The client: redirects are not followed (a moved receiver is a configuration to fix,
    /// and re-POSTing a signed body elsewhere is not ours to decide); connecting and each
    /// read wait at most the delivery timeout.
    private var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: timeAmount(options.timeout), read: timeAmount(options.timeout))
        configuration.decompression = .disabled
        return configuration
    }

    private func timeAmount(_ seconds: TimeInterval) -> TimeAmount {
        .nanoseconds(Int64(max(0.001, seconds) * 1_000_000_000))
    }

    /// A transport error in words for the log and `lastError`.
    private func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout: return "no answer within \(options.timeout) s"
            case .connectTimeout: return "could not connect within \(options.timeout) s"
            case .remoteConnectionClosed: return "the receiver closed the connection without answering"
            default: break
            }
        }
        return DeliveryFailure.oneLine(String(describing: error))
    }

    /// Up to 200 characters of a response body (at most 64 KiB of it are read), on one line.
    private static func excerpt(of body: HTTPClientResponse.Body) async -> String {
        var kept: [UInt8] = []
        var total = 0
        do {
            for try await chunk in body {
                if kept.count < 200 { kept.append(contentsOf: chunk.readableBytesView.prefix(200 - kept.count)) }
                total += chunk.readableBytes
                if total > 64 * 1024 { break }
            }
        } catch {
            // The status is what counts; a body cut short changes nothing.
        }
        return DeliveryFailure.oneLine(String(decoding: kept, as: UTF8.self))
    }
}
