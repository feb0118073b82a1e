import Foundation
import HTTPTypes
import Hummingbird

/// The few pages the server renders itself (the sign-in steps); the desk proper is static
/// files (`DeskAssets`) talking to `/v1`.
enum DeskPages {
    /// Headers of every desk page: no script but the desk's own files, no framing, no referrer
    /// (a login link in a `Referer` would hand it to whatever the page loads), no caching.
    static func headers(contentType: String = "text/html; charset=utf-8") -> HTTPFields {
        [
            .contentType: contentType,
            .contentSecurityPolicy: contentSecurityPolicy,
            .referrerPolicy: "no-referrer",
            .xContentTypeOptions: "nosniff",
            .cacheControl: "no-store",
        ]
    }

    /// No inline script or style, nothing from another origin, no framing, forms only to us.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "media-src 'self' blob:; connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The page a login link opens: a button that POSTs the token. Opening the link spends
    /// nothing (mail scanners fetch links); the button does.
    /// `nonce` is the pre-session cookie's value (`LoginOrigin`).
    static func confirm(token: String, nonce: String) -> String {
        page(title: "Sign in to the Tilawa desk", body: """
            <h1>Sign in to the Tilawa desk</h1>
            <p>This link signs you in on this browser. It works once, for 15 minutes.</p>
            <form method="post" action="/desk/login">
              <input type="hidden" name="token" value="\(escape(token))">
              <input type="hidden" name="nonce" value="\(escape(nonce))">
              <button type="submit" class="primary">Sign in</button>
            </form>
            """)
    }

    /// A link that cannot be used (unknown, used, expired, malformed).
    static func invalid(_ detail: String) -> String {
        page(title: "This link cannot sign you in", body: """
            <h1>This link cannot sign you in</h1>
            <p role="alert">\(escape(detail))</p>
            <p>Ask the programme's office for a new link.</p>
            """)
    }

    /// A sign-in with the identity provider that did not complete: why, and the way back.
    static func notSignedIn(_ detail: String) -> String {
        page(title: "You are not signed in", body: """
            <h1>You are not signed in</h1>
            <p role="alert">\(escape(detail))</p>
            <p><a href="/desk/">Back to the desk's sign-in</a></p>
            """)
    }

    private static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>\(escape(title))</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/desk/assets/desk.css">
        </head>
        <body class="signin">
        <main>
        \(body)
        </main>
        </body>
        </html>

        """
    }

    /// `text` safe in HTML text and double-quoted attributes.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

extension HTTPField.Name {
    static let referrerPolicy = Self("Referrer-Policy")!
}
