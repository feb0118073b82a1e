import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore

/// Verifies the identity provider's access tokens (DESIGN §10): RS256 or ES256 JWTs signed by
/// a key of its published set, for our audience, from its issuer.
///
/// Before jwt-kit sees a token: its header must name a `kid` in the current set (jwt-kit
/// would otherwise verify an unknown `kid` with its default key), an `alg` that is the one
/// algorithm that key verifies, a `typ` of `at+jwt` or `JWT`, and no `crit`. The claims are
/// checked here, not by jwt-kit (whose `exp`/`nbf` have no leeway): `iss` exact, `aud`
/// containing ours, `exp` and `nbf` with `skew` (60 s).
///
/// The key set is fetched when first needed, kept for its `Cache-Control: max-age` clamped to
/// 5 min – 24 h, refetched at most every 30 s when a token names an unknown `kid` (a rotation),
/// one fetch at a time (callers wait for the one in flight), each into a fresh set swapped in
/// whole. A failed fetch keeps the last good set.
actor ProviderTokenVerifier {
    struct Settings: Sendable {
        var issuer: String
        var audience: String
        /// Where the set comes from: a URL (fetched) or a file (read).
        var source: Source
        var skew: TimeInterval = 60
        var unknownKidRefetchInterval: TimeInterval = 30
        var minimumAge: TimeInterval = 300
        var maximumAge: TimeInterval = 86_400
        var fetchTimeout: TimeInterval = 10

        enum Source: Sendable, Hashable {
            case url(URL)
            case file(String)
        }
    }

    /// What the set looks like now, for `status`.
    struct Report: Sendable {
        var fetchedAt: Date?
        var keyCount: Int
        var skipped: [String]
        var lastError: String?
        var lastErrorAt: Date?
    }

    /// A verified token: its subject, the instant it expires, and when it was issued (`iat`,
    /// nil when the provider sets none), which sign-out everywhere is checked against.
    struct Verified: Sendable {
        var subject: String
        var expiresAt: Date
        var issuedAt: Date?
    }

    let settings: Settings
    private let clock: @Sendable () -> Date
    private var current: ProviderKeySet?
    private var fetchedAt: Date?
    private var expiresAt: Date?
    private var lastAttemptAt: Date?
    private var lastError: String?
    private var lastErrorAt: Date?
    private var inFlight: Task<Void, Never>?

    init(settings: Settings, clock: @escaping @Sendable () -> Date = Date.init) {
        self.settings = settings
        self.clock = clock
    }

    var report: Report {
        Report(fetchedAt: fetchedAt, keyCount: current?.algorithms.count ?? 0, skipped: current?.skipped ?? [],
               lastError: lastError, lastErrorAt: lastErrorAt)
    }

    private struct Header: Decodable {
        let alg: String?
        let kid: String?
        let typ: String?
        let crit: [String]?
    }

    /// The claims jwt-kit decodes; checked here, so `verify(using:)` checks nothing.
    private struct Claims: JWTPayload {
        let iss: String?
        let sub: String?
        let aud: Audience?
        let exp: Double?
        let nbf: Double?
        let iat: Double?
        /// An ID token's: the sign-in it answers (`DeskProviderSignIn`).
        let nonce: String?

        enum Audience: Codable, Sendable {
            case one(String)
            case many([String])

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case let .one(one): try container.encode(one)
                case let .many(many): try container.encode(many)
                }
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let one = try? container.decode(String.self) { self = .one(one) } else { self = .many(try container.decode([String].self)) }
            }

            func contains(_ value: String) -> Bool {
                switch self {
                case let .one(one): one == value
                case let .many(many): many.contains(value)
                }
            }
        }

        func verify(using _: some JWTAlgorithm) throws {}
    }

    /// The subject of `token`, or why it is refused. `nonce`: an ID token must carry exactly it
    /// (the sign-in that asked for the token).
    func verify(_ token: String, nonce: String? = nil) async throws(AuthError) -> Verified {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = TokenHeader.base64URLDecoded(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw .invalidToken(reason: "it is not a well-formed JWT")
        }
        guard let alg = header.alg.flatMap(ProviderKeySet.Algorithm.init(rawValue:)) else {
            throw .invalidToken(reason: "its alg is not RS256 or ES256")
        }
        guard let kid = header.kid, !kid.isEmpty else { throw .invalidToken(reason: "it has no kid") }
        if let typ = header.typ?.lowercased(), !["at+jwt", "application/at+jwt", "jwt"].contains(typ) {
            throw .invalidToken(reason: "its typ is not at+jwt or JWT")
        }
        guard header.crit == nil else { throw .invalidToken(reason: "it has a crit header") }

        var keys = await usableKeys()
        if keys?.algorithms[kid] == nil, await refetchForUnknownKid() {
            keys = current
        }
        guard let keys else { throw .invalidToken(reason: "the identity provider's keys could not be fetched; try again in a minute") }
        guard let expected = keys.algorithms[kid] else {
            throw .invalidToken(reason: "its kid is not one of the identity provider's keys")
        }
        guard expected == alg else { throw .invalidToken(reason: "its alg does not match its key") }
        let claims: Claims
        do {
            claims = try await keys.keys.verify(token, as: Claims.self)
        } catch {
            throw .invalidToken(reason: "the signature does not match")
        }
        let now = clock()
        guard claims.iss == settings.issuer else { throw .invalidToken(reason: "it is not from our identity provider (iss)") }
        guard claims.aud?.contains(settings.audience) == true else { throw .invalidToken(reason: "it is not for this service (aud)") }
        guard let exp = claims.exp else { throw .invalidToken(reason: "it has no exp claim") }
        let expiresAt = Date(timeIntervalSince1970: exp)
        guard now < expiresAt.addingTimeInterval(settings.skew) else { throw .expiredToken(expiredAt: expiresAt) }
        if let nbf = claims.nbf, now < Date(timeIntervalSince1970: nbf).addingTimeInterval(-settings.skew) {
            throw .invalidToken(reason: "it is not valid yet (nbf)")
        }
        guard let sub = claims.sub, !sub.isEmpty, sub.utf8.count <= 255,
              !sub.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidToken(reason: "its sub is missing or not one line of at most 255 characters")
        }
        if let nonce, claims.nonce != nonce { throw .invalidToken(reason: "its nonce is not this sign-in's") }
        return Verified(subject: sub, expiresAt: expiresAt, issuedAt: claims.iat.map { Date(timeIntervalSince1970: $0) })
    }

    /// The current set, fetched first when there is none or it has expired (a failed fetch
    /// keeps the last good one).
    private func usableKeys() async -> ProviderKeySet? {
        // With no set at all (the provider down since start), one attempt every 30 s, not one
        // per request.
        if current == nil, let last = lastAttemptAt, clock().timeIntervalSince(last) < settings.unknownKidRefetchInterval {
            return nil
        }
        if current == nil || (expiresAt.map { clock() >= $0 } ?? true) {
            await refresh()
        }
        return current
    }

    /// Refetches for a token naming a `kid` not in the set, at most every 30 s; whether a
    /// fetch was made.
    private func refetchForUnknownKid() async -> Bool {
        if let last = lastAttemptAt, clock().timeIntervalSince(last) < settings.unknownKidRefetchInterval { return false }
        await refresh()
        return true
    }

    /// One fetch at a time: a caller arriving while one runs waits for it.
    func refresh() async {
        if let inFlight {
            await inFlight.value
            return
        }
        let task = Task { await self.fetch() }
        inFlight = task
        await task.value
        inFlight = nil
    }

    private func fetch() async {
        lastAttemptAt = clock()
        do {
            let (data, maxAge) = try await download()
            let set = try await ProviderKeySet.read(data)
            let age = min(max(maxAge ?? settings.minimumAge, settings.minimumAge), settings.maximumAge)
            current = set
            fetchedAt = clock()
            expiresAt = clock().addingTimeInterval(age)
            lastError = nil
        } catch {
            lastError = "\(error)"
            lastErrorAt = clock()
            // Keep the last good set; try again after the shortest age rather than on every token.
            if current != nil { expiresAt = clock().addingTimeInterval(settings.unknownKidRefetchInterval) }
        }
    }

    private func download() async throws -> (Data, TimeInterval?) {
        switch settings.source {
        case let .file(path):
            guard let data = FileManager.default.contents(atPath: path) else { throw ProviderKeyError.fetch("cannot read \(path)") }
            return (data, nil)
        case let .url(url):
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "Accept", value: "application/json")
            let response: HTTPClientResponse
            do {
                response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(settings.fetchTimeout)))
            } catch {
                throw ProviderKeyError.fetch("\(url.absoluteString) could not be reached: \(error)")
            }
            guard response.status == .ok else { throw ProviderKeyError.fetch("\(url.absoluteString) answered \(response.status.code)") }
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Data(buffer: body), Self.maxAge(response.headers["Cache-Control"].joined(separator: ",")))
        }
    }

    /// `max-age` of a `Cache-Control` value, in seconds.
    static func maxAge(_ header: String) -> TimeInterval? {
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if parts.count == 2, parts[0] == "max-age", let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) {
                return TimeInterval(seconds)
            }
        }
        return nil
    }
}
