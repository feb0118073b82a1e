import Foundation
import Logging
import ServiceLifecycle
import TilawaCore
import TilawaStore

/// Pushes the outbox's notices straight to phones (APNs) until graceful shutdown (issue 45).
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
        /// Deliveries sent at once.
        var concurrency = 8
        /// The longest wait between two tries of one delivery.
        var maxBackoff: TimeInterval = 3_600
    }

    let database: AppDatabase
    let apns: APNsClient
    let options: Options
    let wakeup: WakeupSignal
    let metrics: TilawaMetrics
    let clock: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        logger.info("pushes to APNs started", metadata: ["key_id": "\(apns.settings.keyId)", "topic": "\(apns.settings.topic)"])
        // The channel is as this start configured it: a stop recorded under another key is over.
        try? await database.setPushChannelStopped(.ios, reason: nil, now: clock())
        var stopped = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                _ = try await database.fanOutPushes(platforms: [.ios], programmeQuietHours: options.quietHours,
                                                    programmeZone: options.programmeZone, now: clock())
                if !stopped { stopped = try await sendDue() }
            } catch {
                logger.error("cannot read the pushes' queue", metadata: ["error": "\(error)"])
            }
            await cancelWhenGracefulShutdown { await wakeup.wait(timeout: options.pollInterval) }
        }
        try? await apns.http.shutdown()
    }

    /// Sends what is due now; true when the channel stopped (the key or topic refused).
    private func sendDue() async throws -> Bool {
        let now = clock()
        let jobs = try await database.claimPushes(platform: .ios, sender: EncodeJobRunner.workerIdentity, until: now.addingTimeInterval(90),
                                                  now: now, limit: options.concurrency * 4)
        guard !jobs.isEmpty else { return false }
        var refusal: String?
        for batch in stride(from: 0, to: jobs.count, by: options.concurrency).map({ Array(jobs[$0..<min($0 + options.concurrency, jobs.count)]) }) {
            let answers = await withTaskGroup(of: (PushJob, APNsClient.Answer).self) { group in
                for job in batch where refusal == nil {
                    group.addTask { (job, await send(job)) }
                }
                var answers: [(PushJob, APNsClient.Answer)] = []
                for await answer in group { answers.append(answer) }
                return answers
            }
            for (job, answer) in answers {
                if case let .channelRefused(reason) = answer { refusal = reason }
                try await record(job, answer)
            }
        }
        if let refusal {
            logger.critical("pushes to iPhones stopped", metadata: ["reason": "\(refusal)"])
            try await database.setPushChannelStopped(.ios, reason: refusal, now: clock())
            return true
        }
        return false
    }

    private func send(_ job: PushJob) async -> APNsClient.Answer {
        guard let payload = try? EventPayload.decode(job.payload) else {
            return .refused(reason: "the event's payload cannot be read")
        }
        let notification = APNsNotification.make(eventId: job.eventId, payload: payload, topic: apns.settings.topic, badge: job.badge,
                                                 expiresAt: Self.expiry(of: payload, type: job.eventType))
        // The provider token is Apple's business: dated by the wall clock, never the programme's.
        let answer = await apns.send(notification, to: job.device, now: Date())
        guard answer == .expiredToken else { return answer }
        apns.tokens.discard()
        let again = await apns.send(notification, to: job.device, now: Date())
        // A token made a moment ago refused as expired: this machine's clock is off.
        guard again == .expiredToken else { return again }
        return .channelRefused(reason: "APNs says a new provider token of key \(apns.settings.keyId) has expired: is this machine's clock right?")
    }

    /// A reminder is worth showing until its deadline; anything else APNs may keep a day.
    static func expiry(of payload: EventPayload, type: String) -> Date? {
        if type == "deadline_reminder", case let .instant(deadline)? = payload.params?["deadline"] { return deadline }
        return payload.occurredAt.addingTimeInterval(86_400)
    }

    private func record(_ job: PushJob, _ answer: APNsClient.Answer) async throws {
        let now = clock()
        let outcome: AppDatabase.PushOutcome
        switch answer {
        case .sent: outcome = .sent
        case let .unregistered(reason): outcome = .unregistered(error: reason)
        case let .refused(reason): outcome = .dropped(error: reason)
        case let .retry(after, reason):
            let wait = max(after ?? 0, WebhookBackoff.delay(attempt: job.attempts + 1, cap: options.maxBackoff, random: .random(in: 0..<1)))
            outcome = .retry(at: now.addingTimeInterval(wait), error: reason)
        case .expiredToken: outcome = .retry(at: now.addingTimeInterval(60), error: "ExpiredProviderToken")
        case let .channelRefused(reason): outcome = .retry(at: now, error: reason)
        }
        metrics.countPush(platform: job.device.platform.rawValue, result: Self.result(answer))
        if case .unregistered = answer {
            logger.info("device signed out by APNs", metadata: ["owner": "\(job.device.owner.rawValue):\(job.device.ownerId)", "device": "\(job.device.deviceId)"])
        }
        try await database.finishPush(job, outcome: outcome, sender: EncodeJobRunner.workerIdentity, now: now)
    }

    static func result(_ answer: APNsClient.Answer) -> String {
        switch answer {
        case .sent: "sent"
        case .retry: "retried"
        case .unregistered: "unregistered"
        case .refused: "refused"
        case .expiredToken: "expired_token"
        case .channelRefused: "key_refused"
        }
    }
}
