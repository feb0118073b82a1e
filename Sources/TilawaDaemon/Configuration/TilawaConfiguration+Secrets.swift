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

    /// The webhook signing key from `webhook.secret_file`, nil when no secret file is configured.
    public func readWebhookSecret() throws(ConfigurationError) -> [UInt8]? {
        guard let path = webhook.secretFile else { return nil }
        return try readSecret(path: path, key: "webhook.secret_file")
    }

    /// The webhook key being rotated out, from `webhook.previous_secret_file`; nil when not set.
    public func readPreviousWebhookSecret() throws(ConfigurationError) -> [UInt8]? {
        guard let path = webhook.previousSecretFile else { return nil }
        return try readSecret(path: path, key: "webhook.previous_secret_file")
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
