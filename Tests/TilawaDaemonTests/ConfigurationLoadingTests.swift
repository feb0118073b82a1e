import Foundation
import Testing
import TilawaCore
@testable import TilawaDaemon

@Suite("TilawaConfiguration loading")
struct ConfigurationLoadingTests {
    @Test("the notification keys: reminders, quiet hours and the coach's digest, each with none")
    func notifications() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let standard = try scratch.load().program.notificationSchedule
        #expect(standard == .standard && standard.coachDigest == DailyMoment(at: LocalTime(hour: 7, minute: 0)!))
        #expect(standard.quietHours == NotificationSchedule.standardQuietHours, "no push at night by default: 22:00-07:00")
        let set = try scratch.load(environment: [
            "TILAWA_NOTIFICATIONS_DEADLINE_REMINDERS": "3@09:30",
            "TILAWA_NOTIFICATIONS_QUIET_HOURS": "21:00-08:00",
            "TILAWA_NOTIFICATIONS_COACH_DIGEST": "06:45",
        ]).program.notificationSchedule
        #expect(set.reminders == [.init(daysBefore: 3, at: LocalTime(hour: 9, minute: 30)!)])
        #expect(set.quietHours == .init(start: LocalTime(hour: 21, minute: 0)!, end: LocalTime(hour: 8, minute: 0)!))
        #expect(set.coachDigest == DailyMoment(at: LocalTime(hour: 6, minute: 45)!))
        let off = try scratch.load(environment: [
            "TILAWA_NOTIFICATIONS_DEADLINE_REMINDERS": "none", "TILAWA_NOTIFICATIONS_COACH_DIGEST": "none",
            "TILAWA_NOTIFICATIONS_QUIET_HOURS": "none",
        ]).program.notificationSchedule
        #expect(off.reminders.isEmpty && off.coachDigest == nil && off.quietHours == nil)
    }

    @Test("no file and an empty environment give every default, on ./var")
    func defaults() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let config = try scratch.load()
        #expect(config == scratch.defaults())

        let root = scratch.root
        #expect(config.stateDirectory == root + "/var")
        #expect(config.workingDirectory == root)
        #expect(config.credentialsDirectory == nil)
        #expect(config.http.host == "127.0.0.1")
        #expect(config.http.port == 8080)
        #expect(config.http.maxUploadBytes == 104_857_600)
        #expect(config.http.uploadTimeout == 300)
        #expect(config.auth.jwtKeyFile == root + "/var/secrets/jwt.key")
        #expect(config.auth.jwtKeyFileIsExplicit == false)
        #expect(config.auth.defaultTokenTTL == 3600)
        #expect(config.dropbox.path == root + "/var/dropbox")
        #expect(config.dropbox.settleTime == 5)
        #expect(config.dropbox.pollInterval == 2)
        #expect(config.webhook.url == nil)
        #expect(config.webhook.secretFile == nil)
        #expect(config.webhook.timeout == 10)
        #expect(config.webhook.maxBackoff == 3600)
        #expect(config.program.timeZone.identifier == "America/New_York")
        #expect(config.program.catchUpGraceDays == 14)
        #expect(config.program.eocRequiredWeeks == 12)
        #expect(config.program.feedbackDue == 48 * 3600)
        #expect(config.attemptWindow == AttemptWindow.standard)
        #expect(config.attemptWindow.limit == 2)
        #expect(config.attemptWindow.length == 7 * 86_400)
        #expect(config.audioLimits == AudioLimits())
        #expect(config.audioLimits.minDurationSeconds == 10)
        #expect(config.audioLimits.maxDurationSeconds == 900)
        #expect(config.audioLimits.minSpeechSeconds == 5)
        #expect(config.audioLimits.minSpeechRatio == 0.2)
        #expect(config.audioLimits.minLoudnessLUFS == -50)
        #expect(config.encoder.bitrate == 32_000)
        #expect(config.encoder.complexity == 10)
        #expect(config.encoder.signal == "voice")
        #expect(config.encoder.targetLoudnessLUFS == -19)
        #expect(config.encoder.peakCeilingDBFS == -1)
        #expect(config.feedbackLimits == AudioLimits.coachReply)
        #expect(config.feedbackLimits.minDurationSeconds == 2)
        #expect(config.feedbackLimits.maxDurationSeconds == 1800)
        #expect(config.encodeWorkers == 0)
        #expect(config.storage.originalsRetention == 30 * 86_400)
        #expect(config.storage.minFreeBytes == 268_435_456)
        #expect(config.idempotencyRetention == 24 * 3600)
        #expect(config.logLevel == .info)
        #expect(config.logIds == .pseudonym)
    }

    @Test("config/tilawa.yaml in the working directory overrides the defaults")
    func yamlOverrides() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("config/tilawa.yaml", """
            state_dir: data/state
            http:
              host: 0.0.0.0
              port: 9000
              max_upload_bytes: 2048
              upload_timeout_seconds: 12.5
            auth:
              jwt_key_file: keys/jwt.key
            dropbox:
              settle_seconds: 0.5
            webhook:
              url: https://hooks.example.org/tilawa
              secret_file: /etc/tilawa/webhook.secret
            program:
              time_zone: Europe/London
              feedback_due_hours: 24
            attempts:
              limit: 3
              window_days: 14
            audio:
              min_speech_ratio: 0.35
              signal: music
              bitrate: 64000
            feedback:
              max_duration_seconds: 600
            workers:
              encode: 4
            log:
              level: debug
            """)
        let config = try scratch.load()
        let root = scratch.root
        #expect(config.stateDirectory == root + "/data/state")
        #expect(config.dropbox.path == root + "/data/state/dropbox", "dropbox.path follows state_dir")
        #expect(config.http.host == "0.0.0.0")
        #expect(config.http.port == 9000)
        #expect(config.http.maxUploadBytes == 2048)
        #expect(config.http.uploadTimeout == 12.5)
        #expect(config.auth.jwtKeyFile == root + "/keys/jwt.key", "relative to the working directory")
        #expect(config.auth.jwtKeyFileIsExplicit)
        #expect(config.dropbox.settleTime == 0.5)
        #expect(config.webhook.url == URL(string: "https://hooks.example.org/tilawa"))
        #expect(config.webhook.secretFile == "/etc/tilawa/webhook.secret")
        #expect(config.program.timeZone.identifier == "Europe/London")
        #expect(config.program.feedbackDue == 24 * 3600)
        #expect(config.attemptWindow.limit == 3)
        #expect(config.attemptWindow.length == 14 * 86_400)
        #expect(config.audioLimits.minSpeechRatio == 0.35)
        #expect(config.encoder.signal == "music")
        #expect(config.encoder.bitrate == 64_000)
        #expect(config.feedbackLimits.maxDurationSeconds == 600)
        #expect(config.feedbackLimits.minSpeechSeconds == AudioLimits.coachReply.minSpeechSeconds)
        #expect(config.encodeWorkers == 4)
        #expect(config.logLevel == .debug)
        // Untouched keys keep their defaults.
        #expect(config.storage == scratch.defaults().storage)
        #expect(config.audioLimits.minDurationSeconds == 10)
    }

    @Test("--config names the file (relative to the working directory); config/tilawa.yaml is then not read")
    func explicitFile() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("config/tilawa.yaml", "http:\n  port: 7000\n")
        try scratch.write("elsewhere/prod.yaml", "http:\n  host: ::1\n")
        let config = try scratch.load(file: "elsewhere/prod.yaml")
        #expect(config.http.host == "::1")
        #expect(config.http.port == 8080)
    }

    @Test("environment variables override the file, key by key")
    func environmentOverridesYAML() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("config/tilawa.yaml", """
            http:
              port: 9000
              host: 10.0.0.1
            audio:
              signal: music
            """)
        let config = try scratch.load(environment: [
            "TILAWA_HTTP_PORT": "9100",
            "TILAWA_AUDIO_SIGNAL": "auto",
            "TILAWA_HTTP_MAX_UPLOAD_BYTES": "4096",
            "TILAWA_LOG_LEVEL": "warning",
            "TILAWA_LOG_IDS": "clear",
            "TILAWA_PROGRAM_TIME_ZONE": "Asia/Riyadh",
            "TILAWA_DROPBOX_PATH": "/srv/dropbox",
            "PATH": "/usr/bin", "HOME": "/root", "TILAWAX": "not ours",
        ])
        #expect(config.http.port == 9100)
        #expect(config.http.host == "10.0.0.1", "keys the environment does not set come from the file")
        #expect(config.encoder.signal == "auto")
        #expect(config.http.maxUploadBytes == 4096)
        #expect(config.logLevel == .warning)
        #expect(config.logIds == .clear)
        #expect(config.program.timeZone.identifier == "Asia/Riyadh")
        #expect(config.dropbox.path == "/srv/dropbox")
    }

    @Test("$STATE_DIRECTORY is the default state_dir; an explicit state_dir wins")
    func systemdStateDirectory() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        let systemd = try scratch.load(environment: ["STATE_DIRECTORY": "/var/lib/tilawa"])
        #expect(systemd.stateDirectory == "/var/lib/tilawa")
        #expect(systemd.dropbox.path == "/var/lib/tilawa/dropbox")
        #expect(systemd.auth.jwtKeyFile == "/var/lib/tilawa/secrets/jwt.key")
        #expect(systemd == scratch.defaults(stateDirectory: "/var/lib/tilawa"))

        let several = try scratch.load(environment: ["STATE_DIRECTORY": "/var/lib/tilawa:/var/lib/other"])
        #expect(several.stateDirectory == "/var/lib/tilawa", "systemd joins several directories with ':'")

        let fromEnvironment = try scratch.load(environment: ["STATE_DIRECTORY": "/var/lib/tilawa", "TILAWA_STATE_DIR": "/srv/tilawa"])
        #expect(fromEnvironment.stateDirectory == "/srv/tilawa")

        try scratch.write("config/tilawa.yaml", "state_dir: ./mine\n")
        let fromFile = try scratch.load(environment: ["STATE_DIRECTORY": "/var/lib/tilawa"])
        #expect(fromFile.stateDirectory == scratch.root + "/mine")
        #expect(fromFile.dropbox.path == scratch.root + "/mine/dropbox")
    }

    @Test("a YAML null or an empty section leaves the default; an empty file is all defaults")
    func nullsAndEmptyFiles() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("config/tilawa.yaml", "state_dir:\nhttp:\n  port: ~\n  host: null\naudio:\n")
        #expect(try scratch.load() == scratch.defaults())
        try scratch.write("config/tilawa.yaml", "")
        #expect(try scratch.load() == scratch.defaults())
        try scratch.write("config/tilawa.yaml", "# only a comment\n")
        #expect(try scratch.load() == scratch.defaults())
        // A null in the file does not hide the environment.
        try scratch.write("config/tilawa.yaml", "http:\n  port:\n")
        #expect(try scratch.load(environment: ["TILAWA_HTTP_PORT": "81"]).http.port == 81)
    }

    @Test("an empty TILAWA_WEBHOOK_URL switches off the file's webhook")
    func emptyWebhookURLMeansNone() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("config/tilawa.yaml", "webhook:\n  url: https://hooks.example.org/x\n  secret_file: /run/secret\n")
        #expect(try scratch.load().webhook.url != nil)
        let off = try scratch.load(environment: ["TILAWA_WEBHOOK_URL": ""])
        #expect(off.webhook.url == nil)
        try scratch.write("config/tilawa.yaml", "webhook:\n  url: \"\"\n")
        #expect(try scratch.load().webhook.url == nil)
    }

    @Test("workers.encode 0 means one worker per core")
    func encodeWorkerCount() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        #expect(try scratch.load().encodeWorkerCount(processorCount: 6) == 6)
        #expect(try scratch.load(environment: ["TILAWA_WORKERS_ENCODE": "3"]).encodeWorkerCount(processorCount: 6) == 3)
    }

    @Test("YAML integers in other notations and quoted numbers are read as YAML reads them")
    func yamlNumberForms() throws {
        let scratch = try ConfigurationScratch()
        defer { scratch.remove() }
        try scratch.write("config/tilawa.yaml", "http:\n  port: \"9001\"\naudio:\n  min_duration_seconds: 3\n  min_loudness_lufs: -45.5\n")
        let config = try scratch.load()
        #expect(config.http.port == 9001)
        #expect(config.audioLimits.minDurationSeconds == 3)
        #expect(config.audioLimits.minLoudnessLUFS == -45.5)
    }
}
