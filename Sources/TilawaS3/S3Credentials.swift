import Foundation

/// The key pair a request is signed with. Read from files (`s3.access_key_file`,
/// `s3.secret_key_file`, as systemd's credentials hand them over), never from the configuration.
public struct S3Credentials: Sendable, Equatable {
    public let accessKey: String
    public let secretKey: String
    public let sessionToken: String?

    public init(accessKey: String, secretKey: String, sessionToken: String? = nil) {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
    }

    /// Reads each key from its file (the first line, without surrounding white space); a
    /// missing, unreadable or empty file is an `S3Error` naming it.
    public static func load(accessKeyFile: String, secretKeyFile: String) throws -> S3Credentials {
        func read(_ path: String, _ what: String) throws -> String {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw S3Error(code: "credentials_unreadable", message: "cannot read the S3 \(what) from \(path)")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !line.isEmpty else { throw S3Error(code: "credentials_unreadable", message: "\(path) holds no S3 \(what)") }
            return line
        }
        return S3Credentials(accessKey: try read(accessKeyFile, "access key"), secretKey: try read(secretKeyFile, "secret key"))
    }
}
