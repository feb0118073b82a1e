import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TilawaCore
@testable import TilawaDaemon
@_spi(Testing) @testable import TilawaStore
import TilawaTestSupport

/// A signed-in desk: the session cookie and its CSRF token.
struct DeskLogin {
    var cookie: String
    var csrf: String

    func headers(_ extra: HTTPFields = [:], csrf withToken: Bool = false) -> HTTPFields {
        var fields = extra
        fields[.cookie] = "tilawa_desk=\(cookie)"
        if withToken { fields[.csrfToken] = csrf }
        return fields
    }
}

/// A login link's page as a browser holds it: its pre-session cookie and its form's nonce.
struct DeskLoginPage {
    var cookie: String
    var nonce: String

    /// Opens the page of `token`'s link (sending `cookie` when the browser has one already).
    static func open(_ client: LiveClient, token: String, cookie: String? = nil) async throws -> DeskLoginPage {
        var headers: HTTPFields = [.accept: "text/html"]
        if let cookie { headers[.cookie] = "tilawa_login=\(cookie)" }
        let page = try await client.execute(uri: "/desk/login?token=\(token)", method: .get, headers: headers)
        let html = String(buffer: page.body)
        let nonce = try #require(html.firstMatch(of: /name="nonce" value="([^"]+)"/).map { String($0.1) }, "\(html)")
        return DeskLoginPage(cookie: Self.cookie("tilawa_login", in: page) ?? cookie ?? "", nonce: nonce)
    }

    /// The value an answer's `Set-Cookie` gives `name`.
    static func cookie(_ name: String, in answer: LiveAnswer) -> String? {
        answer.headers[values: .setCookie].lazy.compactMap { field -> String? in
            guard let pair = field.split(separator: ";").first, pair.hasPrefix(name + "=") else { return nil }
            return String(pair.dropFirst(name.count + 1))
        }.first
    }

    /// The headers the page's form is posted with, as Chromium sends them (`Origin: null`
    /// under the page's `no-referrer`).
    var headers: HTTPFields {
        [.contentType: "application/x-www-form-urlencoded", .cookie: "tilawa_login=\(cookie)",
         HTTPField.Name("Sec-Fetch-Site")!: "same-origin", .origin: "null"]
    }

    /// The form's body for `token`.
    func form(_ token: String) -> ByteBuffer {
        ByteBuffer(string: "token=\(token)&nonce=\(nonce)")
    }
}

@Suite("The coach's desk: sign-in by login link, sessions, CSRF (live)")
struct DeskSignInTests {
    /// A link for `coach` by the ops route; its secret.
    func link(_ daemon: TestDaemon, _ client: LiveClient, coach: String = "C01") async throws -> String {
        let issued = try await client.execute(uri: "/v1/coaches/\(coach)/login-links", method: .post,
                                              headers: try await daemon.headers(.ops, "ops"))
        #expect(issued.status == .created)
        let url = try #require(issued.json?["url"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:0/desk/login?token="), "\(url)")
        return String(try #require(url.split(separator: "=").last))
    }

    /// Exchanges `token` as the page's button does: the link's page opened first, its
    /// pre-session cookie and form nonce sent back, as a browser sends its own form; the answer.
    func exchange(_ client: LiveClient, _ token: String, html: Bool = false) async throws -> LiveAnswer {
        // A link not even well-formed has no page with a form: the nonce of any link's page will do.
        let page = try await DeskLoginPage.open(client, token: DeskSecret.isWellFormed(token) ? token : String(repeating: "A", count: 43))
        var headers = page.headers
        if html { headers[.accept] = "text/html" }
        return try await client.execute(uri: "/desk/login", method: .post, headers: headers, body: page.form(token))
    }

    func signIn(_ daemon: TestDaemon, _ client: LiveClient, coach: String = "C01") async throws -> DeskLogin {
        let answer = try await exchange(client, try await link(daemon, client, coach: coach))
        #expect(answer.status == .seeOther && answer.headers[.location] == "/desk/")
        let value = try #require(DeskLoginPage.cookie("tilawa_desk", in: answer))
        let session = try await client.execute(uri: "/desk/session", method: .get, headers: [.cookie: "tilawa_desk=\(value)"])
        #expect(session.status == .ok && session.json?["coach_id"] as? String == coach)
        return DeskLogin(cookie: value, csrf: try #require(session.json?["csrf_token"] as? String))
    }

    @Test("login CSRF: a sign-in POST not from the link's page (another site's form, no pre-session cookie, another nonce, a foreign Origin) is 403 login_not_from_link_page and spends nothing; from the page it signs in, and two tabs' pages both work")
    func loginCSRF() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let token = try await link(daemon, client)
            let page = try await DeskLoginPage.open(client, token: token)
            func post(_ headers: HTTPFields, _ body: String) async throws -> LiveAnswer {
                try await client.execute(uri: "/desk/login", method: .post, headers: headers, body: ByteBuffer(string: body))
            }
            var form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            // Another site auto-submitting the link: the browser sends no SameSite=Strict cookie.
            form[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            form[.origin] = "https://evil.example"
            let crossSite = try await post(form, "token=\(token)")
            #expect(crossSite.status == .forbidden && crossSite.json?["code"] as? String == "login_not_from_link_page",
                    "\(String(buffer: crossSite.body))")
            // An old browser without fetch metadata, and without the cookie.
            let bare = try await post([.contentType: "application/x-www-form-urlencoded"], "token=\(token)&nonce=\(page.nonce)")
            #expect(bare.json?["code"] as? String == "login_not_from_link_page")
            // The cookie with another nonce; the right pair from a foreign Origin; from a sibling site.
            var wrongNonce = page.headers
            wrongNonce[.origin] = nil
            #expect(try await post(wrongNonce, "token=\(token)&nonce=\(DeskSecret.make())").json?["code"] as? String == "login_not_from_link_page")
            var foreign = page.headers
            foreign[.origin] = "https://evil.example"
            #expect(try await post(foreign, "token=\(token)&nonce=\(page.nonce)").json?["code"] as? String == "login_not_from_link_page")
            var sibling = page.headers
            sibling[HTTPField.Name("Sec-Fetch-Site")!] = "same-site"
            #expect(try await post(sibling, "token=\(token)&nonce=\(page.nonce)").json?["code"] as? String == "login_not_from_link_page")
            // As a page for a browser, too.
            var asPage = form
            asPage[.accept] = "text/html"
            let refusedPage = try await post(asPage, "token=\(token)")
            #expect(refusedPage.status == .forbidden && String(buffer: refusedPage.body).contains("open the link again"))

            // None of that spent the link or counted against it: from its page it signs in.
            let second = try await DeskLoginPage.open(client, token: try await link(daemon, client), cookie: page.cookie)
            #expect(second.cookie == page.cookie && second.nonce == page.nonce, "a second tab keeps the browser's cookie")
            var sameOrigin = page.headers
            sameOrigin[.origin] = "http://localhost"  // the test client's Host
            let signedIn = try await post(sameOrigin, "token=\(token)&nonce=\(page.nonce)")
            #expect(signedIn.status == .seeOther && DeskLoginPage.cookie("tilawa_desk", in: signedIn) != nil, "\(String(buffer: signedIn.body))")
            let cleared = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("tilawa_login=") })
            #expect(cleared.contains("Max-Age=0") && cleared.contains("Path=/desk/login"))
            let setOnPage = try await client.execute(uri: "/desk/login?token=\(token)", method: .get)
            let preSession = try #require(setOnPage.headers[values: .setCookie].first { $0.hasPrefix("tilawa_login=") })
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/desk/login", "Max-Age=900"] {
                #expect(preSession.contains(attribute), "\(preSession)")
            }
        }
    }

    @Test("the link opens a page whose button signs in; the cookie is HttpOnly, SameSite=Strict, Path=/; a used or expired link is 401 login_link_invalid")
    func signIn() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let token = try await link(daemon, client)
            // Opening the link spends nothing (mail scanners prefetch): a page with a form.
            for _ in 0..<2 {
                let page = try await client.execute(uri: "/desk/login?token=\(token)", method: .get)
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(html.contains(#"<form method="post" action="/desk/login">"#) && html.contains(#"name="token" value="\#(token)""#))
                #expect(page.headers[.referrerPolicy] == "no-referrer" && page.headers[.cacheControl] == "no-store")
                let policy = try #require(page.headers[.contentSecurityPolicy])
                #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline"))
            }
            let answer = try await exchange(client, token)
            #expect(answer.status == .seeOther && answer.headers[.location] == "/desk/")
            let cookie = try #require(answer.headers[values: .setCookie].first { $0.hasPrefix("tilawa_desk=") })
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] { #expect(cookie.contains(attribute), "\(cookie)") }
            #expect(!cookie.contains("Secure"), "no Secure on a plain-http desk")
            #expect(!cookie.contains(token), "the cookie is not the link")

            // The link is spent: again is 401, as a page for a browser.
            let replay = try await exchange(client, token)
            #expect(replay.status == .unauthorized && replay.json?["code"] as? String == "login_link_invalid")
            let replayPage = try await exchange(client, token, html: true)
            #expect(replayPage.status == .unauthorized && String(buffer: replayPage.body).contains("used already"))

            // A link past its 15 minutes.
            let late = try await link(daemon, client)
            daemon.clock.advance(by: 15 * 60 + 1)
            let expired = try await exchange(client, late)
            #expect(expired.status == .unauthorized && expired.json?["code"] as? String == "login_link_invalid")
            #expect((expired.json?["detail"] as? String)?.contains("expired") == true)
            // Made up.
            let forged = try await exchange(client, String(repeating: "A", count: 43))
            #expect(forged.status == .unauthorized && forged.json?["code"] as? String == "login_link_invalid")
            // Only hashes are stored.
            let stored = try await daemon.runtime.database.engine.read { db in try String.fetchAll(db, sql: "SELECT secretHash FROM loginLink") }
            #expect(!stored.contains(token) && stored.contains(DeskSecret.hash(token)))
        }
    }

    @Test("a session has exactly its coach's rights: another coach's student and queue are 404; a change without the CSRF token is 403; a bearer token wins over the cookie")
    func sessionRights() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let upload = try await client.execute(uri: "/v1/students/S1001/weeks/12/submissions", method: .post,
                                                  headers: try await daemon.headers(.student, "S1001", [.contentType: "audio/ogg"]),
                                                  body: try TestDaemon.fixture("speech.opus"))
            let id = try #require(upload.json?["id"] as? String)
            #expect(await daemon.eventually { try daemon.runtime.database.submission(id: id)?.state == .awaitingFeedback })
            let c01 = try await signIn(daemon, client, coach: "C01")
            let c02 = try await signIn(daemon, client, coach: "C02")

            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: c01.headers()).status == .ok)
            #expect(try await client.execute(uri: "/v1/coaches/C02/queue", method: .get, headers: c01.headers()).status == .notFound)
            #expect(try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: c01.headers()).status == .ok)
            #expect(try await client.execute(uri: "/v1/students/S1001/timeline", method: .get, headers: c02.headers()).status == .notFound)
            #expect(try await client.execute(uri: "/v1/submissions/\(id)", method: .get, headers: c02.headers()).status == .notFound)

            // A change: without the token 403, with another session's 403, with its own it goes through.
            let opus = try TestDaemon.fixture("speech.opus")
            let bare = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                headers: c01.headers([.contentType: "audio/ogg"]), body: opus)
            #expect(bare.status == .forbidden && bare.json?["code"] as? String == "csrf_token_missing")
            var crossed = c01.headers([.contentType: "audio/ogg"])
            crossed[.csrfToken] = c02.csrf
            let wrong = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post, headers: crossed, body: opus)
            #expect(wrong.status == .forbidden && wrong.json?["code"] as? String == "csrf_token_invalid")
            // Another coach's session, with its own token, reaches nothing of C01's student.
            let hostile = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                   headers: c02.headers([.contentType: "audio/ogg"], csrf: true), body: opus)
            #expect(hostile.status == .notFound || hostile.status == .forbidden, "\(hostile.status)")
            let reply = try await client.execute(uri: "/v1/submissions/\(id)/feedback", method: .post,
                                                 headers: c01.headers([.contentType: "audio/ogg"], csrf: true), body: opus)
            #expect(reply.status == .created)

            // A bearer token beside the cookie decides: C02's token with C01's cookie is C02.
            var both = c01.headers()
            both[.authorization] = "Bearer \(try await daemon.token(.coach, "C02"))"
            #expect(try await client.execute(uri: "/v1/coaches/C02/queue", method: .get, headers: both).status == .ok)
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: both).status == .notFound)
            // A bad bearer token is refused even with a good cookie.
            both[.authorization] = "Bearer nonsense"
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: both).status == .unauthorized)
            // A made-up cookie is no session.
            let made = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get,
                                                headers: [.cookie: "tilawa_desk=\(String(repeating: "B", count: 43))"])
            #expect(made.status == .unauthorized && made.json?["code"] as? String == "session_ended")
        }
    }

    @Test("the session says whether its coach places students, and only a placing coach's lists the levels and coaches to place with")
    func sessionProfile() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let placing = try await signIn(daemon, client, coach: "C01")
            let mine = try await client.execute(uri: "/desk/session", method: .get, headers: placing.headers())
            #expect(mine.json?["coach_name"] as? String == "Ustadha Maryam Haddad" && mine.json?["places"] as? Bool == true)
            let choices = try #require(mine.json?["placement"] as? [String: Any])
            let levels = (choices["levels"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            let coaches = (choices["coaches"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(levels == ["L1", "L2", "L3", "L4"], "\(String(describing: levels))")
            #expect(Set(coaches ?? []) == ["C01", "C02", "C03"], "\(String(describing: coaches))")

            let other = try await signIn(daemon, client, coach: "C02")
            let theirs = try await client.execute(uri: "/desk/session", method: .get, headers: other.headers())
            #expect(theirs.json?["places"] as? Bool == false)
            #expect(theirs.json?["placement"] == nil || theirs.json?["placement"] is NSNull, "a coach who does not place is not told the levels")
        }
    }

    @Test("sign-out needs the CSRF token and ends the session; sessions slide for desk.session_days; tilawa sessions revoke ends them all")
    func signOutAndExpiry() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let login = try await signIn(daemon, client)
            #expect(try await client.execute(uri: "/desk/logout", method: .post, headers: login.headers()).status == .forbidden)
            let out = try await client.execute(uri: "/desk/logout", method: .post, headers: login.headers(csrf: true))
            #expect(out.status == .noContent && (out.headers[.setCookie] ?? "").contains("Max-Age=0"))
            #expect(try await client.execute(uri: "/desk/session", method: .get, headers: login.headers()).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: login.headers()).status == .unauthorized)

            // Sliding: used within each 7 days, a session lives on; 7 idle days end it.
            let second = try await signIn(daemon, client)
            for _ in 0..<3 {
                daemon.clock.advance(by: 6 * 86_400)
                #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: second.headers()).status == .ok)
            }
            daemon.clock.advance(by: 7 * 86_400 + 1)
            #expect(try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: second.headers()).status == .unauthorized)

            // Revoked from the command line's store call: every session of the coach ends.
            let third = try await signIn(daemon, client)
            let fourth = try await signIn(daemon, client)
            #expect(try daemon.runtime.database.revokeDeskSessions(coachId: "C01", now: daemon.clock.now) == 2)
            for login in [third, fourth] {
                #expect(try await client.execute(uri: "/desk/session", method: .get, headers: login.headers()).status == .unauthorized)
            }
        }
    }

    @Test("a cookie after 8 days of daily use: each day's first use sends the cookie again for 7 more days (once an hour at most); 30 days after sign-in it ends however used")
    func cookieSlidesWithUse() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let login = try await signIn(daemon, client)
            // The browser's view of the cookie: it keeps it until the last Max-Age it was given runs out.
            var browserKeepsUntil = daemon.clock.now.addingTimeInterval(7 * 86_400)
            func use() async throws -> LiveAnswer {
                let answer = try await client.execute(uri: "/v1/coaches/C01/queue", method: .get, headers: login.headers())
                if let set = answer.headers[.setCookie] {
                    #expect(set.contains("tilawa_desk=\(login.cookie)") && set.contains("HttpOnly") && set.contains("SameSite=Strict"), "\(set)")
                    let age = set.split(separator: ";").compactMap { part -> Int? in
                        let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                        return pair.count == 2 && pair[0].lowercased() == "max-age" ? Int(pair[1]) : nil
                    }.first
                    browserKeepsUntil = daemon.clock.now.addingTimeInterval(TimeInterval(try #require(age)))
                }
                return answer
            }
            for day in 1...8 {
                daemon.clock.advance(by: 86_400)
                #expect(daemon.clock.now < browserKeepsUntil, "day \(day): the browser still has the cookie")
                let first = try await use()
                #expect(first.status == .ok && first.headers[.setCookie] != nil, "day \(day): the day's first use renews the cookie")
                daemon.clock.advance(by: 600)
                let again = try await use()
                #expect(again.status == .ok && again.headers[.setCookie] == nil, "day \(day): not again within the hour")
            }
            #expect(browserKeepsUntil.timeIntervalSince(daemon.clock.now) > 6 * 86_400, "after 8 days of daily use the cookie has about 7 days left")
            // Used every day, the session still ends 30 days after the sign-in; the cookie's last Max-Age says so.
            for _ in 9...29 {
                daemon.clock.advance(by: 86_400)
                #expect(try await use().status == .ok)
            }
            daemon.clock.advance(by: 86_400)
            #expect(try await use().status == .unauthorized, "30 days after the sign-in the session ends however used")
        }
    }

    @Test("ten junk sign-ins then a valid link from the same address: signed in (no address is throttled); one link replayed ten times is 429 for that link only")
    func throttledPerLink() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            // Behind the desk's proxy every request has one address: junk from anyone...
            for attempt in 0..<10 {
                let bad = try await exchange(client, String(repeating: "x", count: 42) + "\(attempt % 10)")
                #expect(bad.status == .unauthorized)
                #expect(try await exchange(client, "not-a-link-\(attempt)").status == .unauthorized)
            }
            // ...locks no coach out.
            #expect(try await exchange(client, try await link(daemon, client)).status == .seeOther)

            // A used link replayed: slowed after ten failures, that link only.
            let used = try await link(daemon, client)
            #expect(try await exchange(client, used).status == .seeOther)
            for _ in 0..<10 { #expect(try await exchange(client, used).status == .unauthorized) }
            let slowed = try await exchange(client, used)
            #expect(slowed.status == .tooManyRequests && slowed.headers[.retryAfter] != nil)
            #expect(slowed.json?["code"] as? String == "too_many_login_attempts")
            #expect(try await exchange(client, try await link(daemon, client)).status == .seeOther, "another link is not slowed")
        }
    }

    @Test("the throttle's table is bounded in fact: a flood of distinct failing links keeps it at its bound, and the newest are kept")
    func throttleBounded() {
        let throttle = LoginThrottle(maxFailures: 3, window: 600, maxKeys: 1_000)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<50_000 {
            throttle.fail("link-\(index)", now: start.addingTimeInterval(Double(index) / 1_000))
            if index % 997 == 0 { #expect(throttle.count <= 1_000) }
        }
        let late = start.addingTimeInterval(60)
        for _ in 0..<3 { throttle.fail("link-49999", now: late) }
        #expect(throttle.retryAfter("link-49999", now: late) != nil, "a recent key is kept and counted")
        #expect(throttle.retryAfter("link-0", now: late) == nil, "the oldest were forgotten")
    }

    @Test("the desk's page and files: strict CSP, no inline script, no-store on the page, ETags on the files; ops alone issue links")
    func pageAndFiles() async throws {
        let daemon = try await TestDaemon()
        defer { daemon.remove() }
        try await daemon.application().live { client in
            let page = try await client.execute(uri: "/desk/", method: .get)
            #expect(page.status == .ok && page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let html = String(buffer: page.body)
            // Every script is a file of ours: no inline script, no inline handlers.
            let scripts = html.components(separatedBy: "<script").dropFirst()
            #expect(!scripts.isEmpty && scripts.allSatisfy { $0.hasPrefix(#" type="module" src="/desk/assets/"#) })
            #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
            for name in ["desk.js", "api.js", "queue.js", "desk.css"] {
                let file = try await client.execute(uri: "/desk/assets/\(name)", method: .get)
                #expect(file.status == .ok, "\(name)")
                let etag = try #require(file.headers[.eTag])
                let again = try await client.execute(uri: "/desk/assets/\(name)", method: .get, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified)
            }
            #expect(try await client.execute(uri: "/desk/assets/desk.js", method: .get).headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(try await client.execute(uri: "/desk/assets/nothing.js", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/desk/assets/..%2Findex.html", method: .get).status == .notFound)

            let asCoach = try await client.execute(uri: "/v1/coaches/C01/login-links", method: .post, headers: try await daemon.headers(.coach, "C01"))
            #expect(asCoach.status == .forbidden)
            let unknown = try await client.execute(uri: "/v1/coaches/C99/login-links", method: .post, headers: try await daemon.headers(.ops, "ops"))
            #expect(unknown.status == .notFound)
            // Without desk.link_request the sign-in page offers no request, and the route is not there.
            #expect(try await client.execute(uri: "/desk/sign-in", method: .get).json?["link_request"] as? Bool == false)
            let request = try await client.execute(uri: "/desk/link-request", method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: #"{"who": "C01"}"#))
            #expect(request.status == .notFound)
        }
    }

    @Test("""
        desk.link_request: a coach asks by ID or email; the link goes to the webhook as desk_link_requested for that coach (not the one \
        covering them), never to the page, whose answer is one sentence for anyone; one a coach per 10 minutes; the delivered event keeps no link
        """)
    func linkRequest() async throws {
        let daemon = try await TestDaemon(configure: { $0.desk.linkRequest = true })
        defer { daemon.remove() }
        try await daemon.application().live { client in
            #expect(try await client.execute(uri: "/desk/sign-in", method: .get).json?["link_request"] as? Bool == true)
            // C01 is covered by C02: a link C01 asks for is still C01's alone.
            let cover = try await client.execute(uri: "/v1/coaches/C01/cover", method: .post,
                                                 headers: try await daemon.headers(.ops, "ops", [.contentType: "application/json"]),
                                                 body: ByteBuffer(string: #"{"covering_coach_id": "C02", "until": "2026-11-25T00:00:00Z", "reason": "leave"}"#))
            #expect(cover.status == .created, "\(String(buffer: cover.body))")
            func ask(_ body: String) async throws -> LiveAnswer {
                try await client.execute(uri: "/desk/link-request", method: .post, headers: [.contentType: "application/json"],
                                         body: ByteBuffer(string: body))
            }
            func requested() throws -> [EventRecord] {
                try daemon.runtime.database.engine.read { db in
                    try EventRecord.fetchAll(db, sql: "SELECT * FROM event WHERE type = 'desk_link_requested' ORDER BY seq")
                }
            }
            var answers: [LiveAnswer] = []
            for who in ["C01", "c01", " nobody@example.org ", "C01", "YUSUF.RAHMAN@example.org"] {
                answers.append(try await ask(#"{"who": "\#(who)"}"#))
                daemon.clock.advance(by: 60)
            }
            // One sentence for anyone, never the link.
            #expect(answers.allSatisfy { $0.status == .accepted && $0.json?["detail"] as? String == DeskRoutes.linkRequestAnswer })
            #expect(answers.allSatisfy { !String(buffer: $0.body).contains("token") })
            // C01's first request (the second within 10 minutes sends nothing, in any case), none for
            // no one, C02's by the email on the roster.
            let events = try requested()
            #expect(events.map(\.recipientId) == ["C01", "C02"])
            let payload = try EventPayload.decode(try #require(events.first).payload)
            let link = try #require(payload.extra?.deskLink)
            #expect(link.coachId == "C01" && link.email == "maryam.haddad@example.org")
            let url = try #require(link.url)
            #expect(url.hasPrefix("http://127.0.0.1:0/desk/login?token="))
            // The link signs C01 in.
            let token = String(try #require(url.split(separator: "=").last))
            #expect(try await exchange(client, token).status == .seeOther)
            // Past 10 minutes C01 may ask again.
            daemon.clock.advance(by: 600)
            #expect(try await ask(#"{"who": "C01"}"#).status == .accepted)
            #expect(try requested().count == 3)
            // Delivered, the stored event no longer holds the link.
            let seq = try #require(events.first?.seq)
            try await daemon.runtime.database.markDelivered(seq: seq, now: daemon.clock.now)
            let delivered = try #require(try requested().first)
            #expect(try EventPayload.decode(delivered.payload).extra?.deskLink?.url == nil)
            #expect(!String(decoding: delivered.payload, as: UTF8.self).contains("token"))
            // Not {"who": …}: 400.
            for body in ["{}", #"{"who": ""}"#, #"{"who": 7}"#, "not json", #"{"who": "\#(String(repeating: "x", count: 300))"}"#] {
                let refused = try await ask(body)
                #expect(refused.status == .badRequest && refused.json?["code"] as? String == "invalid_link_request", "\(body)")
            }
        }
    }
}
