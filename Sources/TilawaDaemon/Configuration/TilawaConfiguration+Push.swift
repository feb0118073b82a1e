import Foundation

/// `push.apns.*` and `push.fcm.*`: the push services, each off unless its credentials are given.
extension TilawaConfiguration {
    /// `push.apns.*`: Apple's push service, token-based (a `.p8` key).
    public struct APNs: Sendable, Hashable {
        /// `push.apns.key_file`: the `.p8` signing key (absolute path).
        public var keyFile: String
        /// `push.apns.key_id`, `push.apns.team_id`: the key's and the team's ids (10 characters each).
        public var keyId: String
        public var teamId: String
        /// `push.apns.topic`: the app's bundle id.
        public var topic: String
        /// `push.apns.endpoint`: one origin for both environments (a relay, a test server);
        /// nil: Apple's production and sandbox hosts.
        public var endpoint: URL?
        /// `push.apns.ca_file`: certificates trusted for the endpoint besides the system's.
        public var caFile: String?

        public static let production = URL(string: "https://api.push.apple.com")!
        public static let sandbox = URL(string: "https://api.sandbox.push.apple.com")!

        /// Where a device of `environment` is sent.
        public func origin(sandbox: Bool) -> URL { endpoint ?? (sandbox ? Self.sandbox : Self.production) }
    }

    /// `push.fcm.*`: Firebase Cloud Messaging's HTTP v1 API with a service account.
    public struct FCM: Sendable, Hashable {
        /// `push.fcm.service_account_file`: the service account's JSON key (absolute path).
        public var serviceAccountFile: String
        /// `push.fcm.project_id`: nil: the service account's own project.
        public var projectId: String?
        /// `push.fcm.endpoint`: the API's origin.
        public var endpoint = URL(string: "https://fcm.googleapis.com")!
        /// `push.fcm.ca_file`: certificates trusted for the endpoint and the token endpoint besides the system's.
        public var caFile: String?
    }

    mutating func readAPNs(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let keyFile = values.optionalText("push.apns.key_file"), keyId = values.optionalText("push.apns.key_id")
        let teamId = values.optionalText("push.apns.team_id"), topic = values.optionalText("push.apns.topic")
        let endpoint = values.optionalText("push.apns.endpoint"), caFile = values.optionalText("push.apns.ca_file")
        guard keyFile != nil || keyId != nil || teamId != nil || topic != nil else {
            if let stray = endpoint ?? caFile {
                throw ConfigurationError(key: endpoint != nil ? "push.apns.endpoint" : "push.apns.ca_file",
                                         message: "is set (from \(stray.origin)) but push.apns.key_file, key_id, team_id and topic are not")
            }
            return
        }
        guard let keyFile, let keyId, let teamId, let topic else {
            let missing = [("push.apns.key_file", keyFile), ("push.apns.key_id", keyId), ("push.apns.team_id", teamId), ("push.apns.topic", topic)]
                .first { $0.1 == nil }?.0 ?? "push.apns.key_file"
            throw ConfigurationError(key: missing, message: "is required with the other push.apns keys: pushes to iPhones need the key file, its id, the team id and the app's bundle id")
        }
        func id(_ setting: ConfigurationSources.Setting, _ key: String) throws(ConfigurationError) -> String {
            guard setting.text.count == 10, setting.text.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                throw values.invalid(key, "must be the 10 capital letters and digits Apple shows (e.g. ABC123DEFG)", setting)
            }
            return setting.text
        }
        guard !topic.text.isEmpty, topic.text.count <= 255, topic.text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
            throw values.invalid("push.apns.topic", "must be the app's bundle id, such as org.example.tilawa", topic)
        }
        var apns = APNs(keyFile: secretLocation(keyFile.text), keyId: try id(keyId, "push.apns.key_id"), teamId: try id(teamId, "push.apns.team_id"),
                        topic: topic.text)
        if let endpoint { apns.endpoint = try Self.httpsOrigin(endpoint, key: "push.apns.endpoint", example: "https://api.push.apple.com", values) }
        apns.caFile = caFile.map { secretLocation($0.text) }
        self.apns = apns
    }

    mutating func readFCM(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let accountFile = values.optionalText("push.fcm.service_account_file"), projectId = values.optionalText("push.fcm.project_id")
        let endpoint = values.optionalText("push.fcm.endpoint"), caFile = values.optionalText("push.fcm.ca_file")
        guard let accountFile else {
            if let stray = projectId ?? endpoint ?? caFile {
                let key = projectId != nil ? "push.fcm.project_id" : endpoint != nil ? "push.fcm.endpoint" : "push.fcm.ca_file"
                throw ConfigurationError(key: key, message: "is set (from \(stray.origin)) but push.fcm.service_account_file is not")
            }
            return
        }
        var fcm = FCM(serviceAccountFile: secretLocation(accountFile.text))
        if let projectId {
            guard projectId.text.count <= 64, projectId.text.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
                throw values.invalid("push.fcm.project_id", "must be a Firebase project id (lower-case letters, digits and hyphens)", projectId)
            }
            fcm.projectId = projectId.text
        }
        if let endpoint { fcm.endpoint = try Self.httpsOrigin(endpoint, key: "push.fcm.endpoint", example: "https://fcm.googleapis.com", values) }
        fcm.caFile = caFile.map { secretLocation($0.text) }
        self.fcm = fcm
    }

    /// An https origin (no path, query or user), or `ConfigurationError` naming `key`.
    static func httpsOrigin(_ setting: ConfigurationSources.Setting, key: String, example: String,
                            _ values: ConfigurationValues) throws(ConfigurationError) -> URL {
        guard let url = URL(string: setting.text), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty,
              url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil,
              let origin = URL(string: "https://\(host)" + (url.port.map { ":\($0)" } ?? "")) else {
            throw values.invalid(key, "must be an https origin such as \(example) (no path)", setting)
        }
        return origin
    }
}
