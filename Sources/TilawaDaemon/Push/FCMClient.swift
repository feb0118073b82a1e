import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL
import TilawaCore
import TilawaStore

/// Sends notifications to Android phones through FCM's HTTP v1 API
/// (`POST /v1/projects/<project>/messages:send`) with the service account's access token,
/// and says what each answer means for the delivery.
///
/// FCM takes no idempotency key: a node that dies between FCM's 200 and recording it sends
/// that one notice again when another node takes the delivery over; the phone shows it once
/// (the same `tag` replaces it) and the app can tell by `event_id`.
struct FCMClient: PushChannel {
    let settings: TilawaConfiguration.FCM
    let account: FCMServiceAccount
    let projectId: String
    let tokens: FCMAccessTokens
    let http: HTTPClient

    var platform: Device.Platform { .android }
    var identity: Logger.Metadata { ["account": "\(account.clientEmail)", "project": "\(projectId)"] }

    /// The client `settings` name: its account read (`ConfigurationError` naming
    /// `push.fcm.service_account_file` when it cannot be), its connections trusting `ca_file`
    /// besides the system's roots.
    static func make(_ settings: TilawaConfiguration.FCM) throws -> FCMClient {
        let account: FCMServiceAccount
        switch FCMServiceAccount.load(settings.serviceAccountFile) {
        case let .success(loaded): account = loaded
        case let .failure(problem): throw ConfigurationError(key: "push.fcm.service_account_file", message: problem.description)
        }
        let http = try HTTPClient.pushClient(caFile: settings.caFile, caKey: "push.fcm.ca_file")
        return FCMClient(settings: settings, account: account, projectId: settings.projectId ?? account.projectId,
                         tokens: FCMAccessTokens(account: account, http: http), http: http)
    }

    func deliver(_ job: PushJob, event: EventPayload, expiresAt: Date, recheck: @Sendable () async -> PushAnswer?) async -> PushAnswer {
        let now = Date()
        let message = FCMMessage.make(eventId: job.eventId, payload: event, token: job.device.token, badge: job.badge, expiresAt: expiresAt, now: now)
        let (answer, refused) = await send(message, now: now, recheck: recheck)
        switch answer {
        case .expiredToken: await tokens.discard(refused)
        case .notSent: break  // a stream FCM never processed (a GOAWAY): at once, on another connection
        default: return answer
        }
        // After a token exchange of up to 30 s: `send` asks `recheck` again once it has the token.
        let (again, _) = await send(message, now: Date(), recheck: recheck)
        guard answer == .expiredToken, again == .expiredToken else { return again }
        return .channelRefused(reason: "FCM refuses a new access token of the service account \(account.clientEmail): check its roles in project \(projectId)")
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    /// FCM's answer to `message` (or `recheck`'s, asked once the access token is had, right
    /// before the request), and the access token it was sent with.
    func send(_ message: Data, now: Date, recheck: @Sendable () async -> PushAnswer?) async -> (PushAnswer, accessToken: String) {
        let accessToken: String
        switch await tokens.token(now: now) {
        case let .success(token): accessToken = token
        case let .failure(.unavailable(reason)): return (.retry(after: nil, reason: reason), "")
        case let .failure(.refused(reason)): return (.channelRefused(reason: reason), "")
        }
        if let instead = await recheck() { return (instead, accessToken) }
        let url = sendURL
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer " + accessToken)
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: message))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await http.execute(request, timeout: .seconds(30))
            body = try await response.body.collect(upTo: 64 * 1024)
        } catch {
            return (.unanswered(from: settings.endpoint.host ?? "FCM", error: error), accessToken)
        }
        let status = Int(response.status.code)
        let (code, text) = Self.errorCode(in: Data(body.readableBytesView), status: status)
        return (Self.meaning(status: status, code: code, message: text, retryAfter: PushAnswer.retryAfter(response.headers.first(name: "retry-after")),
                             account: account.clientEmail, project: projectId, endpoint: url), accessToken)
    }

    /// `POST …/v1/projects/<project>/messages:send`.
    var sendURL: String { settings.endpoint.absoluteString + "/v1/projects/\(projectId)/messages:send" }

    /// An error answer's code — FCM's `errorCode` from its `details`, else the error's `status`
    /// (`NOT_FOUND`), else `HTTP <status>` (a body that is not Google's JSON) — and its message.
    static func errorCode(in body: Data, status: Int) -> (code: String, message: String) {
        let document = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        let error = document?["error"] as? [String: Any]
        let details = error?["details"] as? [[String: Any]] ?? []
        let code = details.lazy.compactMap { $0["errorCode"] as? String }.first ?? error?["status"] as? String ?? "HTTP \(status)"
        return (code, error?["message"] as? String ?? "")
    }

    /// The answer's meaning by status and FCM's `errorCode` (Firebase's "FCM error codes");
    /// `endpoint` is the URL the message was sent to.
    static func meaning(status: Int, code: String, message: String, retryAfter: TimeInterval?, account: String, project: String,
                        endpoint: String) -> PushAnswer {
        switch (status, code) {
        case (200, _): return .sent
        // FCM's word that the token is gone: the errorCode UNREGISTERED (with 404 NOT_FOUND).
        case (_, "UNREGISTERED"): return .unregistered(reason: code)
        // The token belongs to another Firebase project's app: it never works with this one.
        case (_, "SENDER_ID_MISMATCH"): return .unregistered(reason: code)
        // A token that is no FCM token at all, as opposed to a message FCM cannot take.
        case (400, "INVALID_ARGUMENT") where message.localizedCaseInsensitiveContains("registration token"): return .unregistered(reason: "\(code): \(message)")
        case (401, "THIRD_PARTY_AUTH_ERROR"): return .channelRefused(reason: "FCM refused the project's credentials (\(code)): check project \(project) in the Firebase console")
        case (401, _): return .expiredToken
        case (403, _):
            return .channelRefused(reason: "FCM refused the service account \(account) for project \(project) (\(code)): check push.fcm.service_account_file and push.fcm.project_id")
        // Any other 404 — NOT_FOUND without UNREGISTERED (the project is not there), or a bare
        // 404 from something that is not FCM's API (a wrong endpoint or path) — is about the
        // URL, not the phone: signing the device out would lose a phone that works, dropping
        // the message would lose every notice one by one and say nothing, and trying again
        // would go round the whole queue at the webhook's backoff until someone read the log.
        // So the channel stops, as for a refused key: `status` names the project and the
        // endpoint, and every delivery waits for a daemon started with them fixed.
        case (404, _):
            return .channelRefused(reason: "FCM answered 404 (\(code)) at \(endpoint): check push.fcm.project_id (project \(project)) and push.fcm.endpoint")
        case (429, _), (500...599, _): return .retry(after: retryAfter, reason: "HTTP \(status) \(code)")
        default: return .refused(reason: "HTTP \(status) \(code)" + (message.isEmpty ? "" : ": \(message)"))
        }
    }
}
