import Foundation
import HTTPTypes
import Hummingbird

/// Proof that a sign-in POST came from the page its login link opened (login CSRF): without
/// it another site could auto-submit *its own* coach's link from a victim's browser and put
/// the victim in that coach's session, where the victim's notes and replies would land.
///
/// The link's page sets a pre-session cookie, `tilawa_login` (a random value, `HttpOnly`,
/// `SameSite=Strict`, `Path=/desk/login`, 15 minutes; kept when it is already there, so two
/// links open in two tabs both work), and carries the same value in its form. The POST must
/// carry both, equal: a cross-site form sends no `SameSite=Strict` cookie, and another site
/// cannot read or set ours. Beside it, the fetch metadata a browser sends: `Sec-Fetch-Site`
/// other than `same-origin` or `none` is refused, and so is an `Origin` that is neither this
/// request's host nor `desk.public_url`'s. (`Origin: null` is accepted: the page's
/// `Referrer-Policy: no-referrer` makes browsers send exactly that on its own form.)
struct LoginOrigin: Sendable {
    /// The pre-session cookie's name.
    static let cookieName = "tilawa_login"

    let secure: Bool
    /// `desk.public_url`'s origin (`scheme://host[:port]`), when configured.
    let publicOrigin: String?

    init(configuration: TilawaConfiguration) {
        let url = configuration.desk.publicURL
        secure = url?.scheme?.lowercased() == "https"
        publicOrigin = url.flatMap(Self.origin(of:))
    }

    /// The value to put in the link page's form, and the cookie to set (nil when the
    /// browser's own is kept).
    func nonce(for request: Request) -> (value: String, cookie: Cookie?) {
        if let value = request.cookies[Self.cookieName]?.value, DeskSecret.isWellFormed(value) { return (value, nil) }
        let value = DeskSecret.make()
        return (value, Cookie(name: Self.cookieName, value: value, maxAge: 15 * 60, path: "/desk/login", secure: secure,
                              httpOnly: true, sameSite: .strict))
    }

    /// The cookie that clears the pre-session cookie once a session began.
    var clearingCookie: Cookie {
        Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/desk/login", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// Nil when `request`, with the form's `nonce`, came from the link's page; otherwise why not.
    func refusal(_ request: Request, nonce: String?) -> APIProblem? {
        if let site = request.headers[.secFetchSite]?.lowercased(), site != "same-origin", site != "none" {
            return Self.problem
        }
        if let origin = request.headers[.origin], origin != "null" {
            let given = origin.lowercased()
            guard given == publicOrigin || Self.sameHost(given, request.head.authority) else { return Self.problem }
        }
        guard let cookie = request.cookies[Self.cookieName]?.value, DeskSecret.isWellFormed(cookie),
              let nonce, DeskSecret.matches(nonce, cookie) else {
            return Self.problem
        }
        return nil
    }

    static let problem = APIProblem(.forbidden, code: "login_not_from_link_page",
                                    detail: "This sign-in did not come from your login link's page; open the link again and press Sign in there.")

    /// Whether `origin` names the request's host (`Host`, HTTP/2's `:authority`) with either
    /// scheme (a TLS proxy in front of a plain-http daemon keeps the host).
    private static func sameHost(_ origin: String, _ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        return origin == "http://" + host || origin == "https://" + host
    }

    /// `scheme://host[:port]` of `url`, lowercased, the default port left out.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        if let port = url.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            return "\(scheme)://\(host):\(port)"
        }
        return "\(scheme)://\(host)"
    }
}

extension HTTPField.Name {
    /// The fetch metadata header naming the relation of the request's initiator to its target.
    static let secFetchSite = Self("Sec-Fetch-Site")!
}
