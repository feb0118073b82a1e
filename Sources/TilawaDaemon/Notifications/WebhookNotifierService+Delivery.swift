import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TilawaStore

/// One delivery: the POST of an event, its outcome recorded in the outbox.
extension WebhookNotifierService {
    /// POSTs one event and records the outcome in the outbox.
    func deliver(_ event: EventRecord, client: HTTPClient, endpoint: WebhookEndpoint) async {
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
    var clientConfiguration: HTTPClient.Configuration {
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
