import Foundation

extension TilawaConfiguration {
    /// Reads a secret file's bytes, dropping one trailing newline (`\n` or `\r\n`).
    ///
    /// A relative `path` is looked up in `credentialsDirectory` (systemd `LoadCredential=`)
    /// first when the file is there, then in `workingDirectory`. The key file of DESIGN §4
    /// and the webhook secret of DESIGN §7 are the file's bytes, so nothing else is trimmed:
    /// a file ending in two newlines keeps one.
    ///
    /// - Parameter key: The key that named the file (`auth.jwt_key_file`), for the error.
    /// - Throws: When the file is missing, a directory, unreadable or empty (after the newline).
    public func readSecret(path: String, key: String) throws(ConfigurationError) -> [UInt8] {
        let location = secretLocation(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) else {
            throw ConfigurationError(key: key, message: "the secret file \(location) does not exist")
        }
        guard !isDirectory.boolValue else {
            throw ConfigurationError(key: key, message: "the secret file \(location) is a directory")
        }
        guard let data = FileManager.default.contents(atPath: location) else {
            throw ConfigurationError(key: key, message: "cannot read the secret file \(location) (check its permissions)")
        }
        var bytes = [UInt8](data)
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        guard !bytes.isEmpty else {
            throw ConfigurationError(key: key, message: "the secret file \(location) is empty")
        }
        return bytes
    }

    /// The HS256 key from `auth.jwt_key_file`.
    public func readJWTKey() throws(ConfigurationError) -> [UInt8] {
        try readSecret(path: auth.jwtKeyFile, key: "auth.jwt_key_file")
    }

    /// The webhook signing key from `webhook.secret_file`, nil when no secret file is configured
    /// (a `whsec_` file is decoded: `webhookKey(fromFile:key:)`).
    public func readWebhookSecret() throws(ConfigurationError) -> [UInt8]? {
        guard let path = webhook.secretFile else { return nil }
        return try Self.webhookKey(fromFile: try readSecret(path: path, key: "webhook.secret_file"), key: "webhook.secret_file")
    }

    /// The webhook key being rotated out, from `webhook.previous_secret_file`; nil when not set.
    public func readPreviousWebhookSecret() throws(ConfigurationError) -> [UInt8]? {
        guard let path = webhook.previousSecretFile else { return nil }
        return try Self.webhookKey(fromFile: try readSecret(path: path, key: "webhook.previous_secret_file"), key: "webhook.previous_secret_file")
    }

    /// The shortest key a `whsec_` secret may decode to (Standard Webhooks: 24 to 64 bytes).
    static let minimumWebhookKeyBytes = 24

    /// A webhook secret file's key. Standard Webhooks writes a secret as `whsec_` and the
    /// base64 of the key, and every receiver library takes that string: such a file means its
    /// decoded bytes, which then sign both the Standard Webhooks and the Tilawa signature
    /// headers. Any other file is its own bytes, as before.
    ///
    /// - Throws: For a `whsec_` file whose rest is not base64, or decodes to fewer than 24 bytes.
    static func webhookKey(fromFile bytes: [UInt8], key: String) throws(ConfigurationError) -> [UInt8] {
        let prefix = Array("whsec_".utf8)
        guard bytes.starts(with: prefix) else { return bytes }
        let encoded = String(decoding: bytes.dropFirst(prefix.count), as: UTF8.self)
        guard let decoded = Data(base64Encoded: encoded) else {
            throw ConfigurationError(key: key, message: "starts with whsec_ (a Standard Webhooks secret) but the rest is not base64")
        }
        guard decoded.count >= minimumWebhookKeyBytes else {
            throw ConfigurationError(key: key, message: "is a whsec_ secret of \(decoded.count) bytes; Standard Webhooks keys are at least \(minimumWebhookKeyBytes)")
        }
        return [UInt8](decoded)
    }

    /// Where a secret at `path` is read from: `path` itself when absolute; for a relative
    /// path, the file in `credentialsDirectory` if it exists there, else the one in `workingDirectory`.
    public func secretLocation(_ path: String) -> String {
        if !path.hasPrefix("/"), let credentialsDirectory {
            let candidate = ConfigurationPath.absolute(path, in: ConfigurationPath.absolute(credentialsDirectory, in: workingDirectory))
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return ConfigurationPath.absolute(path, in: workingDirectory)
    }
}
