import Foundation

/// Where notifications are delivered and the key they are signed with.
public struct WebhookEndpoint: Sendable, Equatable {
    /// `webhook.url`.
    public var url: URL
    /// The bytes of `webhook.secret_file` (one trailing newline dropped).
    public var secret: [UInt8]
    /// The bytes of `webhook.previous_secret_file` during a rotation.
    public var previousSecret: [UInt8]?

    /// Creates an endpoint.
    public init(url: URL, secret: [UInt8], previousSecret: [UInt8]? = nil) {
        self.url = url
        self.secret = secret
        self.previousSecret = previousSecret
    }

    /// The keys every delivery is signed with: the current one first.
    public var secrets: [[UInt8]] { [secret] + (previousSecret.map { [$0] } ?? []) }

    /// The configured endpoint, reading the secret file now; nil when `webhook.url` is not set.
    ///
    /// - Throws: A `ConfigurationError` naming `webhook.secret_file` when the URL is set and
    ///   the secret is missing, unreadable or empty (the daemon exits 78 with it).
    public static func configured(in configuration: TilawaConfiguration) throws(ConfigurationError) -> WebhookEndpoint? {
        guard let url = configuration.webhook.url else { return nil }
        guard let secret = try configuration.readWebhookSecret() else {
            throw ConfigurationError(key: "webhook.secret_file", message: "is required when webhook.url is set; deliveries are signed with it")
        }
        return WebhookEndpoint(url: url, secret: secret, previousSecret: try configuration.readPreviousWebhookSecret())
    }
}
