import Foundation
import Testing
import TilawaCore
@testable import TilawaDaemon

@Suite("TilawaConfiguration validation")
struct ConfigurationValidationTests {
    struct Bound: Sendable, CustomTestStringConvertible {
        let key: String
        let value: String
        let accepted: Bool
        /// Other settings the row needs (a maximum above a tested minimum).
        var also: [String: String] = [:]
        var testDescription: String { "\(key)=\(value) \(accepted ? "accepted" : "refused")" }
    }

    static let bounds: [Bound] = [
        .init(key: "http.port", value: "0", accepted: false),
        .init(key: "http.port", value: "1", accepted: true),
        .init(key: "http.port", value: "65535", accepted: true),
        .init(key: "http.port", value: "65536", accepted: false),
        .init(key: "http.max_upload_bytes", value: "1023", accepted: false),
        .init(key: "http.max_upload_bytes", value: "1024", accepted: true),
        .init(key: "http.max_upload_bytes", value: "4294967296", accepted: true),
        .init(key: "http.max_upload_bytes", value: "4294967297", accepted: false),
        .init(key: "http.upload_timeout_seconds", value: "0.99", accepted: false),
        .init(key: "http.upload_timeout_seconds", value: "1", accepted: true),
        .init(key: "http.upload_timeout_seconds", value: "86400", accepted: true),
        .init(key: "http.upload_timeout_seconds", value: "86400.5", accepted: false),
        .init(key: "auth.default_token_ttl_seconds", value: "59", accepted: false),
        .init(key: "auth.default_token_ttl_seconds", value: "60", accepted: true),
        .init(key: "auth.default_token_ttl_seconds", value: "31536000", accepted: true),
        .init(key: "auth.default_token_ttl_seconds", value: "31536001", accepted: false),
        .init(key: "dropbox.settle_seconds", value: "-0.1", accepted: false),
        .init(key: "dropbox.settle_seconds", value: "0", accepted: true),
        .init(key: "dropbox.settle_seconds", value: "3600", accepted: true),
        .init(key: "dropbox.settle_seconds", value: "3600.1", accepted: false),
        .init(key: "dropbox.poll_interval_seconds", value: "0.09", accepted: false),
        .init(key: "dropbox.poll_interval_seconds", value: "0.1", accepted: true),
        .init(key: "dropbox.poll_interval_seconds", value: "3600", accepted: true),
        .init(key: "dropbox.poll_interval_seconds", value: "3601", accepted: false),
        .init(key: "dropbox.max_reply_bytes", value: "1023", accepted: false),
        .init(key: "dropbox.max_reply_bytes", value: "1024", accepted: true),
        .init(key: "dropbox.max_reply_bytes", value: "12mb", accepted: false),
        .init(key: "webhook.timeout_seconds", value: "0", accepted: false),
        .init(key: "webhook.timeout_seconds", value: "1", accepted: true),
        .init(key: "webhook.timeout_seconds", value: "300", accepted: true),
        .init(key: "webhook.timeout_seconds", value: "301", accepted: false),
        .init(key: "webhook.max_backoff_seconds", value: "4", accepted: false),
        .init(key: "webhook.max_backoff_seconds", value: "5", accepted: true),
        .init(key: "webhook.max_backoff_seconds", value: "604800", accepted: true),
        .init(key: "webhook.max_backoff_seconds", value: "604801", accepted: false),
        .init(key: "program.catch_up_grace_days", value: "-1", accepted: false),
        .init(key: "program.catch_up_grace_days", value: "0", accepted: true),
        .init(key: "program.catch_up_grace_days", value: "365", accepted: true),
        .init(key: "program.catch_up_grace_days", value: "366", accepted: false),
        .init(key: "program.eoc_required_weeks", value: "-1", accepted: false),
        .init(key: "program.eoc_required_weeks", value: "0", accepted: true),
        .init(key: "program.eoc_required_weeks", value: "99", accepted: true),
        .init(key: "program.eoc_required_weeks", value: "100", accepted: false),
        .init(key: "program.feedback_due_hours", value: "0", accepted: false),
        .init(key: "program.feedback_due_hours", value: "1", accepted: true),
        .init(key: "program.feedback_due_hours", value: "8760", accepted: true),
        .init(key: "program.feedback_due_hours", value: "8761", accepted: false),
        .init(key: "attempts.limit", value: "0", accepted: false),
        .init(key: "attempts.limit", value: "1", accepted: true),
        .init(key: "attempts.limit", value: "100", accepted: true),
        .init(key: "attempts.limit", value: "101", accepted: false),
        .init(key: "attempts.window_days", value: "0", accepted: false),
        .init(key: "attempts.window_days", value: "1", accepted: true),
        .init(key: "attempts.window_days", value: "365", accepted: true),
        .init(key: "attempts.window_days", value: "366", accepted: false),
        .init(key: "audio.min_duration_seconds", value: "-0.1", accepted: false),
        .init(key: "audio.min_duration_seconds", value: "0", accepted: true),
        .init(key: "audio.min_duration_seconds", value: "3600", accepted: true, also: ["audio.max_duration_seconds": "86400"]),
        .init(key: "audio.min_duration_seconds", value: "3601", accepted: false, also: ["audio.max_duration_seconds": "86400"]),
        .init(key: "audio.max_duration_seconds", value: "0.9", accepted: false, also: ["audio.min_duration_seconds": "0"]),
        .init(key: "audio.max_duration_seconds", value: "1", accepted: true, also: ["audio.min_duration_seconds": "0"]),
        .init(key: "audio.max_duration_seconds", value: "86400", accepted: true),
        .init(key: "audio.max_duration_seconds", value: "86401", accepted: false),
        .init(key: "audio.min_speech_seconds", value: "-1", accepted: false),
        .init(key: "audio.min_speech_seconds", value: "0", accepted: true),
        .init(key: "audio.min_speech_seconds", value: "3600", accepted: true),
        .init(key: "audio.min_speech_seconds", value: "3601", accepted: false),
        .init(key: "audio.min_speech_ratio", value: "-0.01", accepted: false),
        .init(key: "audio.min_speech_ratio", value: "0", accepted: true),
        .init(key: "audio.min_speech_ratio", value: "1", accepted: true),
        .init(key: "audio.min_speech_ratio", value: "1.01", accepted: false),
        .init(key: "audio.min_loudness_lufs", value: "-70.1", accepted: false),
        .init(key: "audio.min_loudness_lufs", value: "-70", accepted: true),
        .init(key: "audio.min_loudness_lufs", value: "0", accepted: true),
        .init(key: "audio.min_loudness_lufs", value: "0.1", accepted: false),
        .init(key: "audio.bitrate", value: "5999", accepted: false),
        .init(key: "audio.bitrate", value: "6000", accepted: true),
        .init(key: "audio.bitrate", value: "510000", accepted: true),
        .init(key: "audio.bitrate", value: "510001", accepted: false),
        .init(key: "audio.complexity", value: "-1", accepted: false),
        .init(key: "audio.complexity", value: "0", accepted: true),
        .init(key: "audio.complexity", value: "10", accepted: true),
        .init(key: "audio.complexity", value: "11", accepted: false),
        .init(key: "audio.target_loudness_lufs", value: "-70.1", accepted: false),
        .init(key: "audio.target_loudness_lufs", value: "-70", accepted: true),
        .init(key: "audio.target_loudness_lufs", value: "0", accepted: true),
        .init(key: "audio.target_loudness_lufs", value: "0.5", accepted: false),
        .init(key: "audio.peak_ceiling_dbfs", value: "-30.1", accepted: false),
        .init(key: "audio.peak_ceiling_dbfs", value: "-30", accepted: true),
        .init(key: "audio.peak_ceiling_dbfs", value: "0", accepted: true),
        .init(key: "audio.peak_ceiling_dbfs", value: "0.1", accepted: false),
        .init(key: "feedback.min_duration_seconds", value: "-1", accepted: false),
        .init(key: "feedback.min_duration_seconds", value: "0", accepted: true),
        .init(key: "feedback.min_duration_seconds", value: "3600", accepted: true, also: ["feedback.max_duration_seconds": "86400"]),
        .init(key: "feedback.min_duration_seconds", value: "3601", accepted: false, also: ["feedback.max_duration_seconds": "86400"]),
        .init(key: "feedback.max_duration_seconds", value: "0.5", accepted: false, also: ["feedback.min_duration_seconds": "0"]),
        .init(key: "feedback.max_duration_seconds", value: "1", accepted: true, also: ["feedback.min_duration_seconds": "0"]),
        .init(key: "feedback.max_duration_seconds", value: "86400", accepted: true),
        .init(key: "feedback.max_duration_seconds", value: "86401", accepted: false),
        .init(key: "workers.encode", value: "-1", accepted: false),
        .init(key: "workers.encode", value: "0", accepted: true),
        .init(key: "workers.encode", value: "256", accepted: true),
        .init(key: "workers.encode", value: "257", accepted: false),
        .init(key: "storage.originals_retention_days", value: "-1", accepted: false),
        .init(key: "storage.originals_retention_days", value: "0", accepted: true),
        .init(key: "storage.originals_retention_days", value: "3650", accepted: true),
        .init(key: "storage.originals_retention_days", value: "3651", accepted: false),
        .init(key: "storage.min_free_bytes", value: "-1", accepted: false),
        .init(key: "storage.min_free_bytes", value: "0", accepted: true),
        .init(key: "storage.min_free_bytes", value: "9223372036854775807", accepted: true),
        .init(key: "storage.low_free_bytes", value: "-1", accepted: false),
        .init(key: "storage.low_free_bytes", value: "0", accepted: true),
        .init(key: "uploads.max_offline_hours", value: "-1", accepted: false),
        .init(key: "uploads.max_offline_hours", value: "0", accepted: true),
        .init(key: "uploads.max_offline_hours", value: "720", accepted: true),
        .init(key: "uploads.max_offline_hours", value: "721", accepted: false),
        .init(key: "uploads.expire_hours", value: "0", accepted: false),
        .init(key: "uploads.expire_hours", value: "720", accepted: true),
        .init(key: "uploads.max_open_per_student", value: "0", accepted: false),
        .init(key: "uploads.max_open_per_student", value: "100", accepted: true),
        .init(key: "uploads.max_open_per_student", value: "101", accepted: false),
        .init(key: "uploads.staging_budget_bytes", value: "1048575", accepted: false),
        .init(key: "uploads.staging_budget_bytes", value: "1048576", accepted: true),
        .init(key: "submissions.withdraw_minutes", value: "-1", accepted: false),
        .init(key: "submissions.withdraw_minutes", value: "0", accepted: true),
        .init(key: "submissions.withdraw_minutes", value: "1440", accepted: true),
        .init(key: "submissions.withdraw_minutes", value: "1441", accepted: false),
        .init(key: "idempotency.retention_hours", value: "23", accepted: false),
        .init(key: "idempotency.retention_hours", value: "24", accepted: true),
        .init(key: "idempotency.retention_hours", value: "8760", accepted: true),
        .init(key: "idempotency.retention_hours", value: "8761", accepted: false),
    ]

    @Test("every range check at its boundaries, from the environment", arguments: bounds)
    func rangeFromEnvironment(_ bound: Bound) throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        var environment = [environmentName(bound.key): bound.value]
        for (key, value) in bound.also { environment[environmentName(key)] = value }
        if bound.accepted {
            let config = try scratch.load(environment: environment)
            #expect(numericField(bound.key, of: config) == Double(bound.value))
        } else {
            let error = #expect(throws: ConfigurationError.self) { try scratch.load(environment: environment) }
            #expect(error?.key == bound.key)
            #expect(error?.description.hasPrefix("\(bound.key): must be ") == true)
            #expect(error?.description.hasSuffix(", got \"\(bound.value)\" (from \(environmentName(bound.key)))") == true, "\(String(describing: error))")
        }
    }

    @Test("the same boundaries hold in the YAML file, which the error names", arguments: bounds.filter { $0.also.isEmpty })
    func rangeFromFile(_ bound: Bound) throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let parts = bound.key.split(separator: ".")
        let path = try scratch.write("config/tilawa.yaml", "\(parts[0]):\n  \(parts[1]): \(bound.value)\n")
        if bound.accepted {
            #expect(numericField(bound.key, of: try scratch.load()) == Double(bound.value))
        } else {
            let error = #expect(throws: ConfigurationError.self) { try scratch.load() }
            #expect(error?.key == bound.key)
            #expect(error?.description.hasSuffix("(from \(path))") == true, "\(String(describing: error))")
        }
    }

    @Test("the exact one-line message for a bad integer")
    func exactMessage() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let error = #expect(throws: ConfigurationError.self) { try scratch.load(environment: ["TILAWA_HTTP_PORT": "abc"]) }
        #expect(error?.description == #"http.port: must be an integer from 1 to 65535, got "abc" (from TILAWA_HTTP_PORT)"#)
        #expect(error?.code == "bad_configuration")

        let path = try scratch.write("config/tilawa.yaml", "http:\n  port: abc\n")
        let fromFile = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(fromFile?.description == "http.port: must be an integer from 1 to 65535, got \"abc\" (from \(path))")
    }

    struct BadValue: Sendable, CustomTestStringConvertible {
        let key: String
        let value: String
        let rule: String
        var testDescription: String { "\(key)=\(value)" }
    }

    @Test("values of the wrong type or form are refused, naming the key", arguments: [
        BadValue(key: "http.port", value: "8080.5", rule: "must be an integer"),
        BadValue(key: "http.port", value: "", rule: "must be an integer"),
        BadValue(key: "http.port", value: " 8080", rule: "must be an integer"),
        BadValue(key: "http.max_upload_bytes", value: "100MiB", rule: "must be an integer"),
        BadValue(key: "audio.min_speech_ratio", value: "lots", rule: "must be a number"),
        BadValue(key: "audio.min_speech_ratio", value: "nan", rule: "must be a number"),
        BadValue(key: "dropbox.settle_seconds", value: "inf", rule: "must be a number"),
        BadValue(key: "audio.signal", value: "Voice", rule: "must be one of voice, music or auto"),
        BadValue(key: "audio.signal", value: "speech", rule: "must be one of voice, music or auto"),
        BadValue(key: "log.level", value: "verbose", rule: "must be one of trace, debug, info, notice, warning, error or critical"),
        BadValue(key: "log.ids", value: "hashed", rule: "must be one of pseudonym or clear"),
        BadValue(key: "program.time_zone", value: "EST", rule: "must be an IANA time zone name"),
        BadValue(key: "program.time_zone", value: "Mars/Olympus_Mons", rule: "must be an IANA time zone name"),
        BadValue(key: "program.time_zone", value: "", rule: "must be an IANA time zone name"),
        BadValue(key: "webhook.url", value: "ftp://example.org/x", rule: "must be an http or https URL"),
        BadValue(key: "webhook.url", value: "not a url", rule: "must be an http or https URL"),
        BadValue(key: "webhook.url", value: "https://", rule: "must be an http or https URL"),
        BadValue(key: "http.host", value: "my host", rule: "must be a host name or IP address"),
        BadValue(key: "http.host", value: "", rule: "must be a host name or IP address"),
        BadValue(key: "state_dir", value: "", rule: "must be a path"),
        BadValue(key: "dropbox.path", value: "", rule: "must be a path"),
        BadValue(key: "auth.jwt_key_file", value: "", rule: "must be a path"),
        BadValue(key: "notifications.coach_digest", value: "7am", rule: "must be a local time HH:MM"),
        BadValue(key: "notifications.coach_digest", value: "24:00", rule: "must be a local time HH:MM"),
    ])
    func badValue(_ bad: BadValue) throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        // A secret file, so a URL that parses is judged on its own merits.
        let environment = [environmentName(bad.key): bad.value, "TILAWA_WEBHOOK_SECRET_FILE": "/run/secret"]
        let error = #expect(throws: ConfigurationError.self) { try scratch.load(environment: environment) }
        #expect(error?.key == bad.key)
        #expect(error?.message.hasPrefix(bad.rule) == true, "\(String(describing: error))")
        #expect(error?.description.contains("(from \(environmentName(bad.key)))") == true)
        #expect(error?.description.contains("\n") == false)
    }

    @Test("a control character in a value cannot break the one-line message")
    func controlCharacters() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let error = #expect(throws: ConfigurationError.self) { try scratch.load(environment: ["TILAWA_HTTP_PORT": "80\n81"]) }
        #expect(error?.description == #"http.port: must be an integer from 1 to 65535, got "80?81" (from TILAWA_HTTP_PORT)"#)
    }

    @Test("a list or a mapping where one value belongs, or a value where a section belongs, is refused")
    func wrongShapesInFile() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let path = try scratch.write("config/tilawa.yaml", "http:\n  port: [8080, 8081]\n")
        let list = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(list?.description == "http.port: must be a single value, got a list (in \(path))")

        try scratch.write("config/tilawa.yaml", "http:\n  port:\n    value: 8080\n")
        #expect((#expect(throws: ConfigurationError.self) { try scratch.load() })?.key == "http.port")

        try scratch.write("config/tilawa.yaml", "http: 8080\n")
        let scalar = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(scalar?.key == "http")
        #expect(scalar?.message.hasPrefix("must be a section") == true)

        try scratch.write("config/tilawa.yaml", "http:\n  port: true\n")
        let boolean = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(boolean?.description == "http.port: must be an integer from 1 to 65535, got \"true\" (from \(path))")
    }

    @Test("an unknown key in the file is refused, naming it, with the likely intended key")
    func unknownKeysInFile() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let path = try scratch.write("config/tilawa.yaml", "http:\n  prot: 9000\n")
        let nested = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(nested?.description == "http.prot: unknown key in \(path); did you mean http.port?")

        try scratch.write("config/tilawa.yaml", "htpp:\n  port: 9000\n")
        let section = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(section?.key == "htpp")
        #expect(section?.message.hasSuffix("did you mean http?") == true)

        try scratch.write("config/tilawa.yaml", "state_dir: ./var\nfrobnicate: yes\n")
        let topLevel = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(topLevel?.key == "frobnicate")

        // Keys are case-sensitive, as YAML is.
        try scratch.write("config/tilawa.yaml", "HTTP:\n  port: 9000\n")
        #expect((#expect(throws: ConfigurationError.self) { try scratch.load() })?.key == "HTTP")

        // A key from another section is unknown where it stands.
        try scratch.write("config/tilawa.yaml", "http:\n  time_zone: UTC\n")
        #expect((#expect(throws: ConfigurationError.self) { try scratch.load() })?.key == "http.time_zone")
    }

    @Test("an unknown TILAWA_ environment variable is refused; other variables are ignored")
    func unknownEnvironmentVariables() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let error = #expect(throws: ConfigurationError.self) { try scratch.load(environment: ["TILAWA_HTTP_PROT": "9000"]) }
        #expect(error?.description == "TILAWA_HTTP_PROT: unknown environment variable; did you mean TILAWA_HTTP_PORT?")
        #expect(try scratch.load(environment: ["HTTP_PORT": "1", "tilawa_http_prot": "2", "TILAWA": "3"]) == scratch.defaults())
    }

    @Test("malformed YAML is refused with the file and the line", arguments: [
        "http:\n  port: 8080\n   host: x\n",
        "http:\n  host: \"unterminated\n",
        "http:\n\tport: 8080\n",
        "- http\n- port\n",
        "just a sentence\n",
        "http:\n  port: 1\n  port: 2\n",
        "http: {port: 1\n",
    ])
    func malformedYAML(_ text: String) throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let path = try scratch.write("config/tilawa.yaml", text)
        let error = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(error?.key == "config")
        #expect(error?.message.contains(path) == true)
        #expect(error?.description.contains("\n") == false, "\(String(describing: error))")
    }

    @Test("a file that is not UTF-8 is refused")
    func notUTF8() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("config/tilawa.yaml", bytes: [0x68, 0x74, 0xFF, 0xFE, 0x3A, 0x0A])
        #expect((#expect(throws: ConfigurationError.self) { try scratch.load() })?.key == "config")
    }

    @Test("--config naming a missing file or a directory is refused; a missing default file is not")
    func missingConfigFile() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let missing = #expect(throws: ConfigurationError.self) { try scratch.load(file: "nope/tilawa.yaml") }
        #expect(missing?.description == "config: the file \(scratch.root)/nope/tilawa.yaml given with --config does not exist")
        let directory = try scratch.makeDirectory("confdir")
        let isDirectory = #expect(throws: ConfigurationError.self) { try scratch.load(file: directory) }
        #expect(isDirectory?.key == "config")
        #expect(try scratch.load(file: nil) == scratch.defaults())
    }

    @Test("a webhook URL without a secret file is refused, naming webhook.secret_file")
    func webhookNeedsSecret() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let error = #expect(throws: ConfigurationError.self) {
            try scratch.load(environment: ["TILAWA_WEBHOOK_URL": "https://hooks.example.org/tilawa"])
        }
        #expect(error?.key == "webhook.secret_file")
        #expect(error?.message.contains("TILAWA_WEBHOOK_URL") == true)

        let path = try scratch.write("config/tilawa.yaml", "webhook:\n  url: http://127.0.0.1:9999/hook\n  secret_file: \"\"\n")
        let fromFile = #expect(throws: ConfigurationError.self) { try scratch.load() }
        #expect(fromFile?.key == "webhook.secret_file")
        #expect(fromFile?.message.contains(path) == true)

        let ok = try scratch.load(environment: ["TILAWA_WEBHOOK_SECRET_FILE": "secrets/hook"])
        #expect(ok.webhook.url == URL(string: "http://127.0.0.1:9999/hook"))
        #expect(ok.webhook.secretFile == scratch.root + "/secrets/hook")

        // A secret file alone is harmless: there is nothing to sign.
        try scratch.write("config/tilawa.yaml", "webhook:\n  secret_file: /run/secret\n")
        #expect(try scratch.load().webhook.url == nil)
    }

    @Test("a minimum at or above its maximum is refused, blaming the key that was set")
    func minimumBelowMaximum() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let maximum = #expect(throws: ConfigurationError.self) {
            try scratch.load(environment: ["TILAWA_AUDIO_MAX_DURATION_SECONDS": "10"])
        }
        #expect(maximum?.description == #"audio.max_duration_seconds: must be greater than audio.min_duration_seconds (10), got "10" (from TILAWA_AUDIO_MAX_DURATION_SECONDS)"#)
        let minimum = #expect(throws: ConfigurationError.self) {
            try scratch.load(environment: ["TILAWA_FEEDBACK_MIN_DURATION_SECONDS": "1800"])
        }
        #expect(minimum?.description == #"feedback.min_duration_seconds: must be less than feedback.max_duration_seconds (1800), got "1800" (from TILAWA_FEEDBACK_MIN_DURATION_SECONDS)"#)
    }

    @Test("UTC and Etc zones are IANA names too")
    func utcZones() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        #expect(try scratch.load(environment: ["TILAWA_PROGRAM_TIME_ZONE": "UTC"]).program.timeZone.secondsFromGMT() == 0)
        #expect(try scratch.load(environment: ["TILAWA_PROGRAM_TIME_ZONE": "Etc/GMT+5"]).program.timeZone.secondsFromGMT() == -5 * 3600)
    }
}
