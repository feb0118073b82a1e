import AsyncHTTPClient
import Foundation
import NIOCore

/// FCM's OAuth 2.0 access token: the service account's signed assertion exchanged at its
/// token endpoint (the JWT bearer grant, RFC 7523), kept until five minutes before it
/// expires and shared by every send meanwhile (one exchange at a time, however many sends
/// wait for it).
actor FCMAccessTokens {
    let account: FCMServiceAccount
    let http: HTTPClient
    private var current: (token: String, renewAt: Date)?
    private var exchanging: Task<Result<(token: String, renewAt: Date), Failure>, Never>?

    /// Why no token was had.
    enum Failure: Error, Equatable {
        /// The endpoint did not answer, or answered 429/5xx: try again later.
        case unavailable(String)
        /// The endpoint refused the account (`invalid_grant`, `invalid_client`, a 4xx): the channel stops.
        case refused(String)
    }

    /// How long before its expiry a token is replaced.
    static let margin: TimeInterval = 300

    init(account: FCMServiceAccount, http: HTTPClient) {
        self.account = account
        self.http = http
    }

    /// The token to send with at `now` (the wall clock: Google's business).
    func token(now: Date) async -> Result<String, Failure> {
        if let current, now < current.renewAt { return .success(current.token) }
        let task: Task<Result<(token: String, renewAt: Date), Failure>, Never>
        if let exchanging {
            task = exchanging
        } else {
            task = Task { [account, http] in await Self.exchange(account: account, http: http, now: now) }
            exchanging = task
        }
        let result = await task.value
        if exchanging == task { exchanging = nil }
        switch result {
        case let .success(made):
            current = made
            return .success(made.token)
        case let .failure(failure):
            return .failure(failure)
        }
    }

    /// Forgets `token` (FCM answered 401 to it): the next send exchanges a new one. A 401 to a
    /// token already replaced leaves the new one alone.
    func discard(_ token: String) {
        if current?.token == token { current = nil }
    }

    private static func exchange(account: FCMServiceAccount, http: HTTPClient, now: Date) async -> Result<(token: String, renewAt: Date), Failure> {
        let assertion: String
        do {
            assertion = try account.assertion(at: now)
        } catch {
            return .failure(.refused("the service account \(account.clientEmail) cannot sign: \(error)"))
        }
        var request = HTTPClientRequest(url: account.tokenURI.absoluteString)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion))
        let status: Int, body: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            body = try await response.body.collect(upTo: 64 * 1024)
        } catch {
            return .failure(.unavailable("no answer from \(account.tokenURI.host ?? "the token endpoint"): \(error)"))
        }
        let document = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        guard status == 200 else {
            let why = [document["error"] as? String, document["error_description"] as? String].compactMap { $0 }.joined(separator: ": ")
            let said = "the token endpoint answered HTTP \(status)" + (why.isEmpty ? "" : " (\(why))")
            if status == 429 || status >= 500 { return .failure(.unavailable(said)) }
            return .failure(.refused("\(said) for the service account \(account.clientEmail): check push.fcm.service_account_file and this machine's clock"))
        }
        guard let token = document["access_token"] as? String, !token.isEmpty else {
            return .failure(.unavailable("the token endpoint's answer has no access_token"))
        }
        let lifetime = (document["expires_in"] as? NSNumber)?.doubleValue ?? 3_600
        // Renewed five minutes before it expires (halfway, were it to live less than ten).
        return .success((token, now.addingTimeInterval(lifetime > 2 * Self.margin ? lifetime - Self.margin : max(lifetime, 0) / 2)))
    }
}
