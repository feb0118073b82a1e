import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
// async-http-client's own dependency: the error it fails a stream the server refused with.
import NIOHTTP2
import NIOSSL
import TilawaCore
import TilawaStore

/// What a push service's answer means for one delivery.
enum PushAnswer: Sendable, Equatable {
    case sent
    /// 429 or 5xx: try again (`after`: the service's `Retry-After`, if it said one).
    case retry(after: TimeInterval?, reason: String)
    /// No answer came (`kind`: `timeout`, `connection_closed`, `connect`, `tls`, `cancelled`,
    /// `other`): try again. A request that went out may have been taken — neither APNs nor FCM
    /// takes an idempotency key, and APNs does not de-duplicate by `apns-id` — so the phone may
    /// get it twice: every try carries the same `apns-id` and `apns-collapse-id` (FCM: the
    /// same `tag`), so the second replaces the first, and the app can tell by `event_id`. That
    /// is the outbox's contract (at least once, as for the webhook), not a loss.
    case noAnswer(kind: String, reason: String)
    /// Not sent, and no fault of the device's: an HTTP/2 stream the service never processed
    /// (`refusedStream`), or the device's token replaced since the delivery was claimed (the
    /// next claim takes the new one). `deliver` sends a refused stream again at once, once (a new
    /// connection: the refusing one is draining); if that is refused too, it is tried again a
    /// few seconds later, the wait not grown by the device's earlier failures.
    case notSent(reason: String)
    /// The device was signed out, or its owner erased, since the delivery was claimed: nothing
    /// is sent, and the delivery is dropped as its next claim would have dropped it.
    case deviceGone
    /// The token is dead (APNs 410 or `BadDeviceToken`, FCM `UNREGISTERED`): the device is signed out.
    case unregistered(reason: String)
    /// A 4xx about this notification alone (too large, a bad field): never sent.
    case refused(reason: String)
    /// The service's credential aged out (APNs `ExpiredProviderToken`, FCM 401): make a new one and send again.
    case expiredToken
    /// The key, the account, the project or the topic is refused: the channel stops.
    case channelRefused(reason: String)

    /// The `result` label of `tilawa_push_sent_total`; nil for `deviceGone` (no request was made).
    var result: String? {
        switch self {
        case .sent: "sent"
        case .retry, .noAnswer, .notSent: "retried"
        case .unregistered: "unregistered"
        case .refused: "refused"
        case .expiredToken: "expired_token"
        case .channelRefused: "key_refused"
        case .deviceGone: nil
        }
    }

    /// The answer to a request to `origin` that failed with `error` before an answer came.
    static func unanswered(from origin: String, error: any Error) -> PushAnswer {
        if refusedStream(error) { return .notSent(reason: "\(origin) did not process the request: \(error)") }
        return .noAnswer(kind: failureKind(error), reason: "no answer from \(origin): \(error)")
    }

    /// Whether `error` says the server never processed the request, so that sending it again
    /// is safe (RFC 9113 §8.7: every stream above a GOAWAY's last stream id, and one reset with
    /// REFUSED_STREAM).
    ///
    /// async-http-client 1.37.0 does not send such a request again itself: on a GOAWAY,
    /// swift-nio-http2 closes each stream above its last stream id with error code CANCEL
    /// (`ReceivingGoAwayState.swift`, `.bulkStreamClosure` in `HTTP2ChannelHandler.swift`), the
    /// stream's channel reports `NIOHTTP2Errors.StreamClosed` through `errorCaught`, and the
    /// client fails the request with that very error (`HTTP2ClientRequestHandler.errorCaught`,
    /// `HTTPRequestStateMachine.errorHappened`); the pool has by then marked the connection as
    /// draining, so a request made now opens or takes another. A server's own RST_STREAM with
    /// CANCEL looks the same and promises nothing — but APNs and FCM answer every request they
    /// take, and one taken and sent again is shown once (the same `apns-id` and collapse id, the
    /// same `tag`): the cost of that mistake is a try sooner than the backoff would make it.
    /// A stream closed any other way, or the connection closing with the request open
    /// (`HTTPClientError.remoteConnectionClosed`), may have been taken: that is `noAnswer`.
    static func refusedStream(_ error: any Error) -> Bool {
        guard let closed = error as? NIOHTTP2Errors.StreamClosed else { return false }
        return closed.errorCode == .cancel || closed.errorCode == .refusedStream
    }

    /// How a request failed without an answer, for the log: `timeout` (the request's 30-s
    /// deadline or the client's read timeout: the service may have taken it),
    /// `connection_closed` (the connection ended with the request open — as after an HTTP/2
    /// GOAWAY whose answers never came), `connect` (no connection: nothing was sent), `tls`,
    /// `cancelled` (shutting down), else `other` (the error says what).
    static func failureKind(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        if let failure = error as? HTTPClientError {
            if [HTTPClientError.deadlineExceeded, .readTimeout, .writeTimeout].contains(failure) { return "timeout" }
            if failure == .remoteConnectionClosed { return "connection_closed" }
            if [HTTPClientError.connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout].contains(failure) { return "connect" }
            if failure == .cancelled { return "cancelled" }
            return "other"
        }
        if error is NIOSSLError { return "tls" }
        if error is ChannelError { return "connection_closed" }
        return "other"
    }

    /// The service's `Retry-After` header in seconds (the HTTP-date form is ignored: both services send seconds).
    static func retryAfter(_ header: String?) -> TimeInterval? {
        header.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) }
    }
}

/// One push service (APNs for iPhones, FCM for Android phones) as `PushService` drives it.
protocol PushChannel: Sendable {
    var platform: Device.Platform { get }
    /// What sends, for the log (the key id and topic, the account and project).
    var identity: Logger.Metadata { get }
    /// Sends `event` to the job's device, renewing the service's credential once if it aged out
    /// and sending once more at once a request the service never processed (`notSent`).
    ///
    /// `recheck` is asked right before each request, after any credential it waited for: its
    /// answer, when it has one, is returned instead of sending. The job was read when it was
    /// claimed, and it waits for a slot, a token exchange or a first answer before its request;
    /// an erasure or a sign-out committed meanwhile must not be followed by a push to the phone.
    func deliver(_ job: PushJob, event: EventPayload, expiresAt: Date, recheck: @Sendable () async -> PushAnswer?) async -> PushAnswer
    func shutdown() async
}

extension Device.Platform {
    /// The devices' name in the log and `status`.
    public var phones: String {
        switch self {
        case .ios: "iPhones"
        case .android: "Android phones"
        }
    }
}

extension HTTPClient {
    /// A push service's client: HTTP/2 where the service speaks it, bounded connect and read,
    /// trusting `caFile` (named by `caKey` when it cannot be read) besides the system's roots.
    static func pushClient(caFile: String?, caKey: String) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw ConfigurationError(key: caKey, message: "cannot read \(caFile)")
            }
            tls.additionalTrustRoots = [.file(caFile)]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout.connect = .seconds(10)
        configuration.timeout.read = .seconds(30)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
