import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL
import TilawaCore
import TilawaStore

/// Sends one notification to APNs over HTTP/2 (TLS, ALPN `h2`: async-http-client negotiates
/// it) with the provider token, and says what the answer means for the delivery.
struct APNsClient: PushChannel {
    let settings: TilawaConfiguration.APNs
    let tokens: APNsProviderToken
    let http: HTTPClient
    /// The requests made lately (`APNsNotification.make` is a function of these and the topic).
    let notifications = Memo<NotificationKey, APNsNotification>()

    /// What an APNs request is made from besides the client's own settings: the stored event
    /// (its payload as stored, so an event rewritten since — an erasure strips it — is made anew).
    struct NotificationKey: Hashable, Sendable {
        var eventId: String
        var payload: Data
        var badge: Int?
        var expiresAt: Date
    }

    /// The client `settings` name: its key read (`ConfigurationError` naming `push.apns.key_file`
    /// when it cannot be), its connections trusting `ca_file` besides the system's roots.
    static func make(_ settings: TilawaConfiguration.APNs) throws -> APNsClient {
        let key: APNsProviderToken
        switch APNsProviderToken.loadKey(settings.keyFile) {
        case let .success(loaded): key = APNsProviderToken(key: loaded, keyId: settings.keyId, teamId: settings.teamId)
        case let .failure(problem): throw ConfigurationError(key: "push.apns.key_file", message: problem.description)
        }
        return APNsClient(settings: settings, tokens: key, http: try .pushClient(caFile: settings.caFile, caKey: "push.apns.ca_file"))
    }

    var platform: Device.Platform { .ios }
    var identity: Logger.Metadata { ["key_id": "\(settings.keyId)", "topic": "\(settings.topic)"] }

    func deliver(_ job: PushJob, event: EventPayload, expiresAt: Date, recheck: @Sendable () async -> PushAnswer?) async -> PushAnswer {
        // One event's request differs between its devices only by the badge: made once for each.
        let key = NotificationKey(eventId: job.eventId, payload: job.payload, badge: job.badge, expiresAt: expiresAt)
        let notification = notifications.value(for: key) {
            APNsNotification.make(eventId: job.eventId, payload: event, topic: settings.topic, badge: job.badge, expiresAt: expiresAt)
        }
        // The provider token is Apple's business: dated by the wall clock, never the programme's.
        let used = try? tokens.token(now: Date())
        let answer = await send(notification, to: job.device, now: Date(), recheck: recheck)
        switch answer {
        case .expiredToken: tokens.discard(used)
        case .notSent: break  // a stream APNs never processed (a GOAWAY): at once, on another connection
        default: return answer
        }
        // A round trip later: `send` asks `recheck` again before this request (the student may
        // have been erased while APNs answered the first).
        let again = await send(notification, to: job.device, now: Date(), recheck: recheck)
        // A token made a moment ago refused as expired: this machine's clock is off.
        guard answer == .expiredToken, again == .expiredToken else { return again }
        return .channelRefused(reason: "APNs says a new provider token of key \(settings.keyId) has expired: is this machine's clock right?")
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    /// APNs' answer to `notification` for `device`, or `recheck`'s, asked right before the request.
    func send(_ notification: APNsNotification, to device: Device, now: Date, recheck: @Sendable () async -> PushAnswer?) async -> PushAnswer {
        let origin = settings.origin(sandbox: device.environment == .sandbox).absoluteString
        var request = HTTPClientRequest(url: origin + "/3/device/" + device.token)
        request.method = .POST
        do {
            request.headers.add(name: "authorization", value: "bearer " + (try tokens.token(now: now)))
        } catch {
            return .channelRefused(reason: "the APNs key \(settings.keyId) cannot sign: \(error)")
        }
        if let instead = await recheck() { return instead }
        for (name, value) in notification.headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: notification.payload))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await http.execute(request, timeout: .seconds(30))
            body = try await response.body.collect(upTo: 64 * 1024)
        } catch {
            return .unanswered(from: origin, error: error)
        }
        let reason = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])?["reason"] as? String
            ?? "HTTP \(response.status.code)"
        return Self.meaning(status: Int(response.status.code), reason: reason, retryAfter: PushAnswer.retryAfter(response.headers.first(name: "retry-after")),
                            keyId: settings.keyId)
    }

    /// The answer's meaning by status and `reason` (Apple's "Handling notification responses").
    static func meaning(status: Int, reason: String, retryAfter: TimeInterval?, keyId: String) -> PushAnswer {
        switch status {
        case 200: return .sent
        case 410: return .unregistered(reason: reason)
        case 400 where ["BadDeviceToken", "DeviceTokenNotForTopic"].contains(reason): return .unregistered(reason: reason)
        case 400 where ["BadTopic", "TopicDisallowed", "MissingTopic"].contains(reason):
            return .channelRefused(reason: "APNs refused the topic (\(reason)): check push.apns.topic")
        case 403 where reason == "ExpiredProviderToken": return .expiredToken
        case 403: return .channelRefused(reason: "APNs refused the key \(keyId) (\(reason)): check push.apns.key_file, key_id and team_id")
        case 429, 500...599: return .retry(after: retryAfter, reason: "HTTP \(status) \(reason)")
        default: return .refused(reason: "HTTP \(status) \(reason)")
        }
    }
}
