import Foundation
import Testing
@testable import TilawaDaemon
import TilawaTestSupport

@Suite("TilawaConfiguration secrets")
struct ConfigurationSecretTests {
    struct Content: Sendable, CustomTestStringConvertible {
        let name: String
        let file: [UInt8]
        let secret: [UInt8]
        var testDescription: String { name }
    }

    @Test("one trailing newline is dropped, nothing else", arguments: [
        Content(name: "\\n", file: Array("s3cret\n".utf8), secret: Array("s3cret".utf8)),
        Content(name: "\\r\\n", file: Array("s3cret\r\n".utf8), secret: Array("s3cret".utf8)),
        Content(name: "none", file: Array("s3cret".utf8), secret: Array("s3cret".utf8)),
        Content(name: "two newlines keep one", file: Array("s3cret\n\n".utf8), secret: Array("s3cret\n".utf8)),
        Content(name: "two CRLFs keep one", file: Array("s3cret\r\n\r\n".utf8), secret: Array("s3cret\r\n".utf8)),
        Content(name: "a lone CR is not a newline", file: Array("s3cret\r".utf8), secret: Array("s3cret\r".utf8)),
        Content(name: "spaces are key bytes", file: Array(" s3cret \n".utf8), secret: Array(" s3cret ".utf8)),
        Content(name: "binary", file: [0x00, 0xFF, 0x0A, 0x80, 0x0A], secret: [0x00, 0xFF, 0x0A, 0x80]),
    ])
    func newlineHandling(_ content: Content) throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let path = try scratch.write("secrets/key", bytes: content.file)
        let config = scratch.defaults()
        #expect(try config.readSecret(path: path, key: "webhook.secret_file") == content.secret)
        #expect(try config.readSecret(path: "secrets/key", key: "webhook.secret_file") == content.secret, "relative to the working directory")
    }

    @Test("a missing, empty or unreadable secret file is an error naming the key")
    func badSecretFiles() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let config = scratch.defaults()
        let missing = #expect(throws: ConfigurationError.self) { try config.readSecret(path: "absent.key", key: "auth.jwt_key_file") }
        #expect(missing?.description == "auth.jwt_key_file: the secret file \(scratch.root)/absent.key does not exist")

        try scratch.write("empty.key", "")
        let empty = #expect(throws: ConfigurationError.self) { try config.readSecret(path: "empty.key", key: "webhook.secret_file") }
        #expect(empty?.key == "webhook.secret_file")
        #expect(empty?.message.hasSuffix("is empty") == true)

        try scratch.write("newline.key", "\n")
        #expect((#expect(throws: ConfigurationError.self) { try config.readSecret(path: "newline.key", key: "k") })?.message.hasSuffix("is empty") == true)

        let directory = try scratch.makeDirectory("dir.key")
        let isDirectory = #expect(throws: ConfigurationError.self) { try config.readSecret(path: directory, key: "auth.jwt_key_file") }
        #expect(isDirectory?.description == "auth.jwt_key_file: the secret file \(directory) is a directory")
    }

    @Test("a relative secret path is looked up in $CREDENTIALS_DIRECTORY first, then the working directory")
    func credentialsDirectory() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let credentials = try scratch.makeDirectory("run/credentials/tilawa.service")
        try scratch.write("run/credentials/tilawa.service/webhook.secret", "from-credentials\n")
        try scratch.write("webhook.secret", "from-working-directory\n")
        try scratch.write("run/credentials/tilawa.service/jwt.key", "jwt-from-credentials")
        try scratch.write("only-here.secret", "only-in-working-directory")

        let config = try scratch.load(environment: [
            "CREDENTIALS_DIRECTORY": credentials,
            "TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa",
            "TILAWA_WEBHOOK_SECRET_FILE": "webhook.secret",
            "TILAWA_AUTH_JWT_KEY_FILE": "jwt.key",
        ])
        #expect(config.credentialsDirectory == credentials)
        #expect(config.webhook.secretFile == credentials + "/webhook.secret")
        #expect(try config.readWebhookSecret() == Array("from-credentials".utf8))
        #expect(config.auth.jwtKeyFile == credentials + "/jwt.key")
        #expect(config.auth.jwtKeyFileIsExplicit)
        #expect(try config.readJWTKey() == Array("jwt-from-credentials".utf8))

        // readSecret does the same lookup for a relative path, falling back to the working directory.
        #expect(try config.readSecret(path: "webhook.secret", key: "k") == Array("from-credentials".utf8))
        #expect(try config.readSecret(path: "only-here.secret", key: "k") == Array("only-in-working-directory".utf8))
        // An absolute path is read as it is.
        #expect(try config.readSecret(path: scratch.root + "/webhook.secret", key: "k") == Array("from-working-directory".utf8))

        // Without the variable the working directory's file is used.
        let plain = try scratch.load(environment: ["TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa", "TILAWA_WEBHOOK_SECRET_FILE": "webhook.secret"])
        #expect(try plain.readWebhookSecret() == Array("from-working-directory".utf8))
    }

    @Test("a whsec_ webhook secret is its base64-decoded key (both files); a raw one its bytes; bad base64 or a key under 24 bytes names the key")
    func standardWebhooksSecret() async throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let key = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let previous = Array(repeating: UInt8(0xA5), count: 24)
        try scratch.write("hook.secret", "whsec_" + Data(key).base64EncodedString() + "\n")
        try scratch.write("old.secret", "whsec_" + Data(previous).base64EncodedString())
        let config = try scratch.load(environment: ["TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa",
                                                    "TILAWA_WEBHOOK_SECRET_FILE": "hook.secret", "TILAWA_WEBHOOK_PREVIOUS_SECRET_FILE": "old.secret"])
        #expect(try config.readWebhookSecret() == key)
        #expect(try config.readPreviousWebhookSecret() == previous)
        let endpoint = try #require(try WebhookEndpoint.configured(in: config))
        #expect(endpoint.secrets == [key, previous])
        // The stock verifier, given each file's own string, accepts a delivery signed with them.
        let body = Array(#"{"id":"evt_1","type":"feedback_ready"}"#.utf8)
        let headers = StandardWebhookSignature.headers(id: "evt_1", body: body, secrets: endpoint.secrets,
                                                     timestamp: Int64(Date().timeIntervalSince1970))
        let delivery: [String: Any] = ["body": Data(body).base64EncodedString(), "headers": Dictionary(uniqueKeysWithValues: headers)]
        let file = try scratch.write("deliveries.jsonl", String(decoding: try JSONSerialization.data(withJSONObject: delivery), as: UTF8.self) + "\n")
        let verified = try await runProcess(packageRoot.appendingPathComponent(".venv-test/bin/python").path, [
            packageRoot.appendingPathComponent("Tests/contract/verify_standard_webhooks.py").path, file,
            "whsec_" + Data(key).base64EncodedString(), "whsec_" + Data(previous).base64EncodedString(),
        ])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")

        try scratch.write("raw.secret", "whsec-not-the-prefix")
        let raw = try scratch.load(environment: ["TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa", "TILAWA_WEBHOOK_SECRET_FILE": "raw.secret"])
        #expect(try raw.readWebhookSecret() == Array("whsec-not-the-prefix".utf8))

        for (file, words) in [("whsec_***not base64***", "not base64"), ("whsec_" + Data(repeating: 1, count: 16).base64EncodedString(), "16 bytes")] {
            try scratch.write("bad.secret", file)
            let bad = try scratch.load(environment: ["TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa", "TILAWA_WEBHOOK_SECRET_FILE": "bad.secret"])
            let error = #expect(throws: ConfigurationError.self) { try WebhookEndpoint.configured(in: bad) }
            #expect(error?.key == "webhook.secret_file" && error?.message.contains(words) == true, "\(String(describing: error))")
        }
    }

    @Test("the default key file is in the state directory, not explicit, and reading it before it exists names the key")
    func defaultJWTKey() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let config = try scratch.load()
        #expect(!config.auth.jwtKeyFileIsExplicit)
        #expect((#expect(throws: ConfigurationError.self) { try config.readJWTKey() })?.key == "auth.jwt_key_file")
        try scratch.write("var/secrets/jwt.key", "k3y\n")
        #expect(try config.readJWTKey() == Array("k3y".utf8))
        #expect(try config.readWebhookSecret() == nil)
    }
}
