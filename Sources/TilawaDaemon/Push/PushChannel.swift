import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
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
    /// The token is dead (APNs 410 or `BadDeviceToken`, FCM `UNREGISTERED`): the device is signed out.
    case unregistered(reason: String)
    /// A 4xx about this notification alone (too large, a bad field): never sent.
    case refused(reason: String)
    /// The service's credential aged out (APNs `ExpiredProviderToken`, FCM 401): make a new one and send again.
    case expiredToken
    /// The key, the account, the project or the topic is refused: the channel stops.
    case channelRefused(reason: String)

    /// The `result` label of `tilawa_push_sent_total`.
    var result: String {
        switch self {
        case .sent: "sent"
        case .retry, .noAnswer: "retried"
        case .unregistered: "unregistered"
        case .refused: "refused"
        case .expiredToken: "expired_token"
        case .channelRefused: "key_refused"
        }
    }

    /// The answer to a request to `origin` that failed with `error` before an answer came.
    static func unanswered(from origin: String, error: any Error) -> PushAnswer {
        .noAnswer(kind: failureKind(error), reason: "no answer from \(origin): \(error)")
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
    /// Sends `event` to the job's device, renewing the service's credential once if it aged out.
    func deliver(_ job: PushJob, event: EventPayload, expiresAt: Date) async -> PushAnswer
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
