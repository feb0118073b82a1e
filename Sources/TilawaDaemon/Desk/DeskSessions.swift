import Foundation
import HTTPTypes
import Hummingbird
import TilawaStore

/// The desk's server-side sessions as the HTTP layer uses them: the cookie that names one,
/// and the session it names.
///
/// The cookie holds only a random secret (`DeskSecret`); the database holds its hash, the
/// coach, the CSRF token and the sliding end (`desk.session_days`). It is `HttpOnly`,
/// `SameSite=Strict`, `Path=/`, and `Secure` when `desk.public_url` is https.
public struct DeskSessions: Sendable {
    /// The session cookie's name.
    static let cookieName = "tilawa_desk"

    let database: AppDatabase
    let lifetime: TimeInterval
    let maxLifetime: TimeInterval
    let secure: Bool

    /// The sessions of `configuration`'s daemon.
    public init(database: AppDatabase, configuration: TilawaConfiguration) {
        self.database = database
        lifetime = configuration.desk.sessionLifetime
        maxLifetime = configuration.desk.sessionMaxLifetime
        secure = configuration.desk.publicURL?.scheme?.lowercased() == "https"
    }

    /// The session `request`'s cookie names, if live (its end moved on); nil without a
    /// cookie or for an unknown, ended or revoked one.
    func session(of request: Request, now: Date) async throws -> (session: DeskSession, secret: String)? {
        guard let secret = Self.cookieSecret(of: request) else { return nil }
        guard let session = try await database.deskSession(sessionHash: DeskSecret.hash(secret), lifetime: lifetime, maxLifetime: maxLifetime,
                                                           now: now) else {
            return nil
        }
        return (session, secret)
    }

    /// The session cookie's value when it has a secret's shape.
    static func cookieSecret(of request: Request) -> String? {
        guard let value = request.cookies[cookieName]?.value, DeskSecret.isWellFormed(value) else { return nil }
        return value
    }

    /// Whether `request` carries a session cookie at all (well-formed or not).
    static func hasCookie(_ request: Request) -> Bool {
        request.cookies[cookieName] != nil
    }

    /// The cookie that starts a session with `secret`.
    func cookie(_ secret: String) -> Cookie {
        Cookie(name: Self.cookieName, value: secret, maxAge: Int(lifetime), path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The cookie sent again when a use moved the session's end on: it lives as long as the session.
    func renewedCookie(_ secret: String, until end: Date, now: Date) -> Cookie {
        Cookie(name: Self.cookieName, value: secret, maxAge: max(0, Int(end.timeIntervalSince(now))), path: "/", secure: secure,
               httpOnly: true, sameSite: .strict)
    }

    /// The cookie that ends one (sign-out).
    func clearingCookie() -> Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}

extension HTTPField.Name {
    /// The CSRF token a cookie-authenticated request that changes state must carry.
    static let csrfToken = Self("X-CSRF-Token")!
}
