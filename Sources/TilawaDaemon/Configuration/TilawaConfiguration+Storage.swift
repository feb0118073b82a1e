import Foundation
import TilawaCore
import TilawaPostgres
import TilawaS3

/// `artifacts.url`, `s3.*` and `database.*`: where the state lives.
extension TilawaConfiguration {
    mutating func readArtifacts(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        if let setting = values.optionalText("artifacts.url"), setting.text != "file:" {
            let rule = """
                must be file:, file:///absolute/path (a directory the nodes share) or s3://bucket/prefix \
                (a bucket of 3–63 of a–z 0–9 . -, a prefix without . or .. segments)
                """
            if setting.text.hasPrefix("file:") {
                guard let directory = Self.sharedDirectory(setting.text) else { throw values.invalid("artifacts.url", rule, setting) }
                artifacts.directory = directory
            } else {
                guard let location = S3Location(url: setting.text) else { throw values.invalid("artifacts.url", rule, setting) }
                artifacts.s3Location = location
            }
        }
        if let setting = values.optionalText("s3.endpoint") {
            let rule = "must be an http or https origin such as https://s3.example.org:9000 (no path, query or user)"
            guard let url = URL(string: setting.text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil
            else { throw values.invalid("s3.endpoint", rule, setting) }
            artifacts.s3Endpoint = URL(string: "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? ""))
        }
        if let region = try values.text("s3.region", rule: "must be a region name such as us-east-1") {
            guard region.text.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
                throw values.invalid("s3.region", "must be a region name such as us-east-1 (a–z, 0–9, -)", region)
            }
            artifacts.s3Region = region.text
        }
        artifacts.s3AccessKeyFile = values.optionalText("s3.access_key_file").map { secretLocation($0.text) }
        artifacts.s3SecretKeyFile = values.optionalText("s3.secret_key_file").map { secretLocation($0.text) }
        if let directory = artifacts.directory, backup.dir != nil {
            throw ConfigurationError(key: "backup.dir", message: """
                cannot back up artifacts kept in \(directory), outside the state directory: back that filesystem up with \
                its own tools (snapshots), and the database with its own; remove backup.dir
                """)
        }
        if let location = artifacts.s3Location {
            for (key, present) in [("s3.endpoint", artifacts.s3Endpoint != nil), ("s3.access_key_file", artifacts.s3AccessKeyFile != nil),
                                   ("s3.secret_key_file", artifacts.s3SecretKeyFile != nil)] where !present {
                throw ConfigurationError(key: key, message: "is required when artifacts.url is \(location)")
            }
            if backup.dir != nil {
                throw ConfigurationError(key: "backup.dir", message: """
                    cannot back up artifacts kept in \(location): keep the bucket versioned or replicated with the store's \
                    own tools, and back the database up with its own; remove backup.dir
                    """)
            }
        }
    }

    /// The directory of `file:///absolute/path` (percent-escapes decoded): no host, no query,
    /// no empty, `.` or `..` segment, not the root itself; nil for anything else.
    static func sharedDirectory(_ text: String) -> String? {
        guard text.hasPrefix("file:///"), let url = URL(string: text), url.scheme == "file", (url.host ?? "").isEmpty,
              url.query == nil, url.fragment == nil else { return nil }
        let path = url.path
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("/"), !segments.isEmpty,
              segments.enumerated().allSatisfy({ index, segment in
                  (segment.isEmpty && index == segments.count - 1 && segments.count > 1) || (!segment.isEmpty && segment != "." && segment != "..")
              }),
              !path.utf8.contains(0) else { return nil }
        return path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    mutating func readDatabase(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        if let setting = values.optionalText("database.url"), setting.text != "sqlite:" {
            let rule = "must be sqlite: or postgres://user@host[:port]/database (the password goes in database.password_file)"
            guard let location = PostgresLocation(url: setting.text) else { throw values.invalid("database.url", rule, setting) }
            database.postgres = location
            if backup.dir != nil {
                throw ConfigurationError(key: "backup.dir", message: """
                    cannot back up the database at \(location): back it up with PostgreSQL's own tools (pg_dump, or \
                    point-in-time recovery from WAL archives); remove backup.dir
                    """)
            }
        }
        database.passwordFile = values.optionalText("database.password_file").map { secretLocation($0.text) }
    }
}
