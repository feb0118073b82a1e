import Foundation
import Testing
@testable import TilawaDaemon
import TilawaTestSupport

@Suite("Webhook endpoint: the URL and the secret read at start")
struct WebhookEndpointTests {
    @Test("A configured URL comes with the secret file's bytes, one trailing newline dropped; no URL, no endpoint")
    func configured() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("secrets/hook", "s3cret\n")
        let config = try scratch.load(environment: [
            "TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa", "TILAWA_WEBHOOK_SECRET_FILE": "secrets/hook",
        ])
        let endpoint = try #require(try WebhookEndpoint.configured(in: config))
        #expect(endpoint.url == URL(string: "https://hooks.example.org/tilawa"))
        #expect(endpoint.secret == Array("s3cret".utf8))
        #expect(try WebhookEndpoint.configured(in: scratch.load(environment: ["TILAWA_WEBHOOK_SECRET_FILE": "secrets/hook"])) == nil)
        #expect(try WebhookEndpoint.configured(in: scratch.load()) == nil)
    }

    @Test("A configured URL whose secret file is missing or empty is a configuration error naming webhook.secret_file")
    func unreadableSecret() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("secrets/empty", "\n")
        for file in ["secrets/absent", "secrets/empty"] {
            let config = try scratch.load(environment: [
                "TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa", "TILAWA_WEBHOOK_SECRET_FILE": file,
            ])
            let error = #expect(throws: ConfigurationError.self) { try WebhookEndpoint.configured(in: config) }
            #expect(error?.key == "webhook.secret_file", "\(file)")
        }
        var config = scratch.defaults()
        config.webhook.url = URL(string: "https://hooks.example.org/tilawa")
        let error = #expect(throws: ConfigurationError.self) { try WebhookEndpoint.configured(in: config) }
        #expect(error?.key == "webhook.secret_file", "a URL without any secret file")
    }

    @Test("tilawa serve with a webhook URL and a missing secret exits 78 naming the key")
    func serveRefusesUnreadableSecret() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // `timeout` turns a daemon that wrongly starts into a failure instead of a hung test.
        let result = try await runProcess("timeout", ["60", tilawaBinary, "serve"], environment: [
            "TILAWA_STATE_DIR": scratch.path("var"),
            "TILAWA_WEBHOOK_URL": "http://127.0.0.1:9/hook", "TILAWA_WEBHOOK_SECRET_FILE": scratch.path("absent.secret"),
        ], directory: scratch.path)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("webhook.secret_file"), "\(result.stderr)")
    }
}
