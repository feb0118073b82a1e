import Foundation
import Logging
import ServiceLifecycle
import TilawaCore
import TilawaStore

/// Pushes the outbox's notices straight to phones (APNs, FCM) until graceful shutdown (issue 45).
///
/// Every tick it fans the new events out into one delivery per device of their recipient
/// (`AppDatabase.fanOutPushes`: once each, the cursor in the same transaction), then claims
/// the due ones for this node, sends them a few at a time and records each outcome. The push
/// flag, the categories a student turned off, quiet hours and a student's own actions decide
/// as they do for the webhook, which keeps working beside it. A refused key or topic stops
/// the channel (said in `status` and the log, nothing dropped): the deliveries wait for a
/// daemon started with the key fixed.
struct PushService: Service {
    struct Options: Sendable {
        var quietHours: NotificationSchedule.QuietHours?
        var programmeZone = TimeZone.gmt
        var pollInterval: Duration = .seconds(1)
        /// Deliveries in flight at once, per channel: HTTP/2 streams on one connection (APNs
        /// allows many); at 100 ms a round trip, 32 send a 10,000-phone unlock in about 30 s.
        var concurrency = 32
        /// The longest wait between two tries of one delivery.
        var maxBackoff: TimeInterval = 3_600
    }

    let database: AppDatabase
    let channels: [any PushChannel]
    let options: Options
    let wakeup: WakeupSignal
    let metrics: TilawaMetrics
    let clock: @Sendable () -> Date
    let logger: Logger
    /// How the log names a device's owner.
    let pseudonyms: LogPseudonyms
    /// The re-reads of the devices before their requests, one query for those asked together.
    private let rechecks: Batched<Device, PushAnswer?>
    /// The outcomes to store, one transaction for those that came together.
    private let outcomes: Batched<(job: PushJob, outcome: AppDatabase.PushOutcome), Result<Void, any Error>>
    /// The events' payloads as read lately (nil: unreadable), by their stored bytes.
    private let payloads = Memo<Data, EventPayload?>()

    init(database: AppDatabase, channels: [any PushChannel], options: Options, wakeup: WakeupSignal, metrics: TilawaMetrics,
         clock: @escaping @Sendable () -> Date, logger: Logger, pseudonyms: LogPseudonyms) {
        self.database = database
        self.channels = channels
        self.options = options
        self.wakeup = wakeup
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
        self.pseudonyms = pseudonyms
        rechecks = Batched { devices in await Self.recheck(devices, in: database) }
        outcomes = Batched { finished in
            do {
                try await database.finishPushes(finished, sender: EncodeJobRunner.workerIdentity, now: clock())
                return finished.map { _ in .success(()) }
            } catch {
                return finished.map { _ in .failure(error) }
            }
        }
    }

    func run() async throws {
        for channel in channels {
            logger.info("pushes to \(channel.platform.phones) started", metadata: channel.identity)
            // The channel is as this start configured it: a stop recorded under another key is over.
            try? await database.setPushChannelStopped(channel.platform, reason: nil, now: clock())
        }
        // A daemon of this host killed mid-send: what it was sending goes out now (once more
        // for the one in flight: APNs gets the same apns-id, an Android phone the same tag).
        if let released = try? await database.releasePushClaims(unless: { EncodeJobRunner.isAlive($0) }), released > 0 {
            logger.notice("pushes a stopped daemon was sending are sent again", metadata: ["count": "\(released)"])
        }
        var stopped: Set<Device.Platform> = []
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            // Busy (a week's unlock to every student): the next round at once, not after the poll.
            var busy = false
            do {
                let made = try await database.fanOutPushes(platforms: Set(channels.map(\.platform)), programmeQuietHours: options.quietHours,
                                                           programmeZone: options.programmeZone, now: clock())
                busy = made > 0
                for channel in channels where !stopped.contains(channel.platform) {
                    switch try await sendDue(channel) {
                    case .stopped: stopped.insert(channel.platform)
                    case .more: busy = true
                    case .done: break
                    }
                }
            } catch {
                logger.error("cannot read the pushes' queue", metadata: ["error": "\(error)"])
            }
            if !busy { await cancelWhenGracefulShutdown { await wakeup.wait(timeout: options.pollInterval) } }
        }
        for channel in channels { await channel.shutdown() }
    }

    enum Round { case done, more, stopped }

    /// Sends what is due now through `channel`: `.more` when it stopped at `claimsPerRound`
    /// with more perhaps due, `.stopped` when the channel stopped (its credential or topic refused).
    ///
    /// A sliding window: `concurrency` sends in flight, each answer recorded as it comes (a daemon
    /// killed meanwhile sends again only what was in flight), and the next few claimed as soon
    /// as those claimed are all started — never a wave that waits for its slowest send. A claim
    /// takes at most `concurrency` deliveries, so none waits for a slot longer than one send
    /// (a send, a token exchange and a second send: 90 s at most), then takes as long itself:
    /// its lease (`leaseSeconds`) outlasts both.
    private func sendDue(_ channel: any PushChannel) async throws -> Round {
        var claims = 0
        var lastClaimFull = false
        func claim() async throws -> ArraySlice<PushJob> {
            let now = clock()
            let jobs = try await database.claimPushes(platform: channel.platform, sender: EncodeJobRunner.workerIdentity,
                                                      until: now.addingTimeInterval(Self.leaseSeconds), now: now, limit: options.concurrency)
            claims += 1
            lastClaimFull = jobs.count == options.concurrency
            return jobs[...]
        }
        var waiting = try await claim()
        guard !waiting.isEmpty else { return .done }
        var refusal: String?
        try await withThrowingTaskGroup(of: (PushJob, PushAnswer).self) { group in
            func startNext() {
                guard refusal == nil, let job = waiting.popFirst() else { return }
                group.addTask {
                    let answer = await send(job, through: channel)
                    // Stored before the slot is free: together with the sends that answered
                    // while the last outcomes were being written (`Batched`).
                    try await record(job, answer)
                    return (job, answer)
                }
            }
            for _ in 0..<options.concurrency { startNext() }
            while let (_, answer) = try await group.next() {
                if case let .channelRefused(reason) = answer { refusal = reason }
                if waiting.isEmpty, lastClaimFull, refusal == nil, claims < Self.claimsPerRound {
                    waiting = try await claim()
                }
                startNext()
            }
        }
        if let refusal {
            logger.critical("pushes to \(channel.platform.phones) stopped", metadata: ["reason": "\(refusal)"])
            try await database.setPushChannelStopped(channel.platform, reason: refusal, now: clock())
            return .stopped
        }
        return lastClaimFull ? .more : .done
    }

    /// How long a claim is this node's before another may take it: a wait for a slot and the
    /// send itself, 90 s each at worst (`sendDue`), with room to spare. At 120 s a send held that
    /// long could be claimed and sent by another node while this one's request was still out.
    static let leaseSeconds: TimeInterval = 240

    /// Claims of one channel in one round: then the round ends, so that new events are fanned
    /// out and the other channel takes its turn while a long unlock is being sent.
    static let claimsPerRound = 64

    private func send(_ job: PushJob, through channel: any PushChannel) async -> PushAnswer {
        // The stored payload, decoded once for all the devices it goes to.
        guard let payload = payloads.value(for: job.payload, { try? EventPayload.decode(job.payload) }) else {
            return .refused(reason: "the event's payload cannot be read")
        }
        return await channel.deliver(job, event: payload, expiresAt: Self.expiry(of: payload, type: job.eventType),
                                     recheck: { await recheck(job) })
    }

    /// What to answer instead of sending `job` now (nil: send it), asked by the channel right
    /// before each request. The job was read when it was claimed; before its request it waits
    /// for a slot, perhaps a token exchange, and for a second try a first answer — and an
    /// erasure deletes the student's devices (their deliveries are dropped at their next
    /// claim, not taken from a node already holding them). So: the device gone (an erasure, a
    /// sign-out) → `deviceGone`, nothing sent; its token replaced → `notSent`, the next claim
    /// takes the new one. What is left is the moment between this read and the request going
    /// out, and a request already on its way when the erasure commits. The sends that ask
    /// together share one query (`Batched`: each answer from a read begun after it asked).
    private func recheck(_ job: PushJob) async -> PushAnswer? {
        await rechecks.run(job.device)
    }

    /// `recheck`'s answer for each of `devices` from one read of their rows.
    private static func recheck(_ devices: [Device], in database: AppDatabase) async -> [PushAnswer?] {
        let current: [Device]
        do {
            current = try await database.currentDevices(devices)
        } catch {
            return devices.map { _ in .notSent(reason: "cannot read the device before sending: \(error)") }
        }
        return devices.map { device in
            guard let now = current.first(where: { $0.owner == device.owner && $0.ownerId == device.ownerId && $0.deviceId == device.deviceId }) else {
                return .deviceGone
            }
            guard now.platform == device.platform, now.token == device.token else {
                return .notSent(reason: "the device's token was replaced after the delivery was claimed")
            }
            return nil
        }
    }

    /// A reminder is worth showing until its deadline; anything else APNs may keep a day.
    static func expiry(of payload: EventPayload, type: String) -> Date {
        if type == "deadline_reminder", case let .instant(deadline)? = payload.params?["deadline"] { return deadline }
        return payload.occurredAt.addingTimeInterval(86_400)
    }

    private func record(_ job: PushJob, _ answer: PushAnswer) async throws {
        let now = clock()
        let outcome: AppDatabase.PushOutcome
        switch answer {
        case .sent: outcome = .sent
        case let .unregistered(reason): outcome = .unregistered(error: reason)
        case let .refused(reason): outcome = .dropped(error: reason)
        case let .retry(after, reason):
            let wait = max(after ?? 0, WebhookBackoff.delay(attempt: job.attempts + 1, cap: options.maxBackoff, random: .random(in: 0..<1)))
            outcome = .retry(at: now.addingTimeInterval(wait), error: reason)
        case let .noAnswer(_, reason):
            let wait = WebhookBackoff.delay(attempt: job.attempts + 1, cap: options.maxBackoff, random: .random(in: 0..<1))
            outcome = .retry(at: now.addingTimeInterval(wait), error: reason)
        case let .notSent(reason):
            // No fault of the device's: the first step of the backoff, however often it was tried.
            let wait = WebhookBackoff.delay(attempt: 1, cap: options.maxBackoff, random: .random(in: 0..<1))
            outcome = .retry(at: now.addingTimeInterval(wait), error: reason)
        case .deviceGone: outcome = .dropped(error: "the device or the event is gone")
        case .expiredToken: outcome = .retry(at: now.addingTimeInterval(60), error: "ExpiredProviderToken")
        case let .channelRefused(reason): outcome = .retry(at: now, error: reason)
        }
        if let result = answer.result { metrics.countPush(platform: job.device.platform.rawValue, result: result) }
        logFailure(job, answer, outcome: outcome)
        if case .unregistered = answer {
            logger.info("device signed out by its push service", metadata: [
                "owner": "\(job.device.owner.rawValue):\(pseudonyms.owner(job.device.owner, job.device.ownerId))", "device": "\(job.device.deviceId)",
            ])
        }
        try await outcomes.run((job, outcome)).get()
    }

    /// A send that did not go through, at warning with its `kind`: `busy` (429, 5xx), how a
    /// request got no answer (`timeout`, `connection_closed`, …: sent again, perhaps shown
    /// twice), `not_sent` (a stream the service refused, sent again), `refused` (never sent),
    /// `expired_token`. A slow or failing service shows in the log as it happens
    /// (`scripts/bench-push.sh` counts these lines by kind); a refused channel is said once,
    /// critical, by `sendDue`.
    private func logFailure(_ job: PushJob, _ answer: PushAnswer, outcome: AppDatabase.PushOutcome) {
        let failure: (kind: String, reason: String)? = switch answer {
        case .sent, .unregistered, .channelRefused, .deviceGone: nil
        case let .retry(_, reason): ("busy", reason)
        case let .noAnswer(kind, reason): (kind, reason)
        case let .notSent(reason): ("not_sent", reason)
        case let .refused(reason): ("refused", reason)
        case .expiredToken: ("expired_token", "the service's credential expired")
        }
        guard let failure else { return }
        var metadata: Logger.Metadata = [
            "platform": "\(job.device.platform.rawValue)", "kind": "\(failure.kind)", "reason": "\(failure.reason)",
            "event": "\(job.eventId)", "device": "\(job.device.deviceId)", "attempt": "\(job.attempts + 1)",
        ]
        if case let .retry(at, _) = outcome { metadata["next_attempt_at"] = "\(at.formatted(.iso8601))" }
        logger.warning(failure.kind == "refused" ? "push refused, not sent" : "push not sent, tried again", metadata: metadata)
    }
}
