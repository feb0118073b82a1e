import Foundation
import TilawaCore
import TilawaPostgres
import TilawaS3

extension TilawaConfiguration {
    /// Reads the configuration: `TILAWA_*` environment variables, then the YAML file, then the defaults.
    ///
    /// The file is `file` when given (it must exist and parse), else `config/tilawa.yaml` in
    /// `workingDirectory` if it exists, else none. Relative paths, in the file or the
    /// environment, are resolved against `workingDirectory`. Under systemd, `$STATE_DIRECTORY`
    /// (its first entry) is the default `state_dir`; relative secret paths are looked up in
    /// `$CREDENTIALS_DIRECTORY` first when the file is there. A YAML null (`key:`) leaves a key
    /// at its default; an empty `webhook.url` or `webhook.secret_file` means none.
    ///
    /// - Parameters:
    ///   - file: The `--config` argument, if any.
    ///   - environment: The process environment (`ProcessInfo.processInfo.environment`).
    ///   - workingDirectory: An absolute path, normally the current directory.
    /// - Throws: The first bad value, unknown key (in the file, or a `TILAWA_*` variable that
    ///   is not a key), or unreadable file, as one `ConfigurationError`.
    public static func load(
        file: String?,
        environment: [String: String],
        workingDirectory: String
    ) throws(ConfigurationError) -> TilawaConfiguration {
        var values = try values(file: file, environment: environment, workingDirectory: workingDirectory)
        return try load(from: &values, environment: environment, workingDirectory: workingDirectory)
    }

    /// The sources for `load`, after checking the environment's `TILAWA_*` names and the file's keys.
    static func values(file: String?, environment: [String: String], workingDirectory: String) throws(ConfigurationError) -> ConfigurationValues {
        try checkEnvironmentNames(environment)
        let configurationFile = try ConfigurationFile.locate(explicitPath: file, workingDirectory: workingDirectory)
        return ConfigurationValues(sources: ConfigurationSources(environment: environment, file: configurationFile))
    }

    /// `TILAWA_*` variables that are not configuration keys: the crash-test hook (`Failpoint`),
    /// the test clock (`AcceleratedClock`) and the switch of the PostgreSQL suites (`make
    /// test-postgres`), which the commands those suites spawn inherit.
    static let notConfigurationKeys: Set<String> = ["TILAWA_FAILPOINT", AcceleratedClock.variable, "TILAWA_TEST_POSTGRES", "TILAWA_TEST_ENGINE"]

    /// Rejects a `TILAWA_*` variable that is not a key: a typo there is as bad as one in the file.
    private static func checkEnvironmentNames(_ environment: [String: String]) throws(ConfigurationError) {
        let known = ConfigurationKey.byEnvironmentVariable
        for name in environment.keys.sorted()
        where name.hasPrefix("TILAWA_") && known[name] == nil && !notConfigurationKeys.contains(name) {
            let hint = ConfigurationKey.suggestion(for: name, among: known.keys.sorted())
                .map { "; did you mean \($0)?" } ?? "; every key is listed in config/tilawa.yaml and in the README's configuration table"
            throw ConfigurationError(key: name, message: "unknown environment variable\(hint)")
        }
    }

    static func load(
        from values: inout ConfigurationValues,
        environment: [String: String],
        workingDirectory: String
    ) throws(ConfigurationError) -> TilawaConfiguration {
        let workingDirectory = ConfigurationPath.absolute(workingDirectory, in: "/")
        let stateDirectory = try values.path("state_dir", workingDirectory: workingDirectory)
            ?? systemdDirectory(environment["STATE_DIRECTORY"]).map { ConfigurationPath.absolute($0, in: workingDirectory) }
            ?? ConfigurationPath.absolute("var", in: workingDirectory)
        var config = TilawaConfiguration(
            stateDirectory: stateDirectory,
            workingDirectory: workingDirectory,
            credentialsDirectory: systemdDirectory(environment["CREDENTIALS_DIRECTORY"])
        )
        try config.readHTTP(&values)
        try config.readAuth(&values)
        try config.readSCIM(&values)
        try config.readPrivacy(&values)
        try config.readDropbox(&values)
        try config.readWebhook(&values)
        try config.readAPNs(&values)
        try config.readFCM(&values)
        try config.readProgram(&values)
        try config.readNotifications(&values)
        try config.readAttempts(&values)
        try config.readAudio(&values)
        try config.readFeedback(&values)
        config.encodeWorkers = try values.integer("workers.encode", default: config.encodeWorkers, in: 0...256)
        config.storage.originalsRetention = try TimeInterval(
            values.integer("storage.originals_retention_days", default: 30, in: 0...3650) * 86_400)
        config.storage.minFreeBytes = try values.integer("storage.min_free_bytes", default: config.storage.minFreeBytes, in: 0...Int.max)
        config.storage.lowFreeBytes = try values.integer("storage.low_free_bytes", default: config.storage.lowFreeBytes, in: 0...Int.max)
        let retention = try values.integer("retention.months_after_semester", default: 0, in: 0...1200)
        config.storage.retentionMonthsAfterSemester = retention == 0 ? nil : retention
        config.backup.dir = try values.path("backup.dir", workingDirectory: workingDirectory)
        config.backup.everyHours = try values.integer("backup.every_hours", default: config.backup.everyHours, in: 1...720)
        config.backup.keep = try values.integer("backup.keep", default: config.backup.keep, in: 1...365)
        try config.readArtifacts(&values)
        try config.readDatabase(&values)
        config.uploads.maxOffline = try TimeInterval(values.integer("uploads.max_offline_hours", default: 72, in: 0...720) * 3_600)
        config.uploads.expiry = try TimeInterval(values.integer("uploads.expire_hours", default: 24, in: 1...720) * 3_600)
        config.uploads.maxOpenPerStudent = try values.integer("uploads.max_open_per_student", default: 3, in: 1...100)
        config.uploads.stagingBudgetBytes = try Int64(values.integer(
            "uploads.staging_budget_bytes", default: Int(config.uploads.stagingBudgetBytes), in: 1_048_576...Int(Int64.max / 2)))
        config.submissions.withdrawMinutes = try values.integer("submissions.withdraw_minutes", default: 10, in: 0...1_440)
        config.comments.maxPerMinute = try values.integer("comments.max_per_minute", default: config.comments.maxPerMinute, in: 0...1_000)
        try config.readDesk(&values)
        config.idempotencyRetention = try TimeInterval(values.integer("idempotency.retention_hours", default: 24, in: 24...8760) * 3600)
        let level = try values.choice("log.level", default: config.logLevel.rawValue, among: LogLevel.allCases.map(\.rawValue))
        config.logLevel = LogLevel(rawValue: level) ?? config.logLevel
        let ids = try values.choice("log.ids", default: config.logIds.rawValue, among: LogIdentifiers.allCases.map(\.rawValue))
        config.logIds = LogIdentifiers(rawValue: ids) ?? config.logIds
        return config
    }

    /// The first entry of a systemd directory variable (several are joined with `:`), nil when unset or empty.
    private static func systemdDirectory(_ value: String?) -> String? {
        guard let first = value?.split(separator: ":").first, !first.isEmpty else { return nil }
        return String(first)
    }

    private mutating func readHTTP(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        if let host = try values.text("http.host", rule: "must be a host name or IP address") {
            let allowed = host.text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-:_%".unicodeScalars.contains($0)) }
            guard allowed else { throw values.invalid("http.host", "must be a host name or IP address", host) }
            http.host = host.text
        }
        http.port = try values.integer("http.port", default: http.port, in: 1...65535)
        http.maxUploadBytes = try values.integer("http.max_upload_bytes", default: http.maxUploadBytes, in: 1024...4 * 1024 * 1024 * 1024)
        http.uploadTimeout = try values.number("http.upload_timeout_seconds", default: http.uploadTimeout, in: 1...86_400)
        http.maxConcurrentUploads = try values.integer("http.max_concurrent_uploads", default: http.maxConcurrentUploads, in: 1...4_096)
        http.maxUploadsPerPrincipal = try values.integer("http.max_uploads_per_principal", default: http.maxUploadsPerPrincipal, in: 1...4_096)
        // The default share shrinks with a small pool: students always keep at least one slot.
        http.coachUploadSlots = try values.integer("http.coach_upload_slots", default: min(http.coachUploadSlots, http.maxConcurrentUploads - 1),
                                                   in: 0...(http.maxConcurrentUploads - 1))
        http.minUploadBytesPerSecond = try values.integer("http.min_upload_bytes_per_second", default: http.minUploadBytesPerSecond,
                                                          in: 0...1_073_741_824)
        http.minUploadRateWindow = try values.number("http.min_upload_rate_window_seconds", default: http.minUploadRateWindow, in: 1...3600)
    }

    private mutating func readDropbox(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        if let path = try values.path("dropbox.path", workingDirectory: workingDirectory) { dropbox.path = path }
        dropbox.settleTime = try values.number("dropbox.settle_seconds", default: dropbox.settleTime, in: 0...3600)
        dropbox.pollInterval = try values.number("dropbox.poll_interval_seconds", default: dropbox.pollInterval, in: 0.1...3600)
        dropbox.maxReplyBytes = try values.integer("dropbox.max_reply_bytes", default: dropbox.maxReplyBytes, in: 1024...4 * 1024 * 1024 * 1024)
    }

    private mutating func readWebhook(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let urlSetting = values.optionalText("webhook.url")
        if let urlSetting {
            let rule = "must be an http or https URL such as https://hooks.example.org/tilawa"
            guard let url = URL(string: urlSetting.text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = url.host, !host.isEmpty
            else { throw values.invalid("webhook.url", rule, urlSetting) }
            webhook.url = url
        }
        if let secret = values.optionalText("webhook.secret_file") {
            webhook.secretFile = secretLocation(secret.text)
        }
        if let previous = values.optionalText("webhook.previous_secret_file") {
            webhook.previousSecretFile = secretLocation(previous.text)
        }
        if let urlSetting, webhook.secretFile == nil {
            throw ConfigurationError(
                key: "webhook.secret_file",
                message: "is required when webhook.url is set (webhook.url from \(urlSetting.origin)); deliveries are signed with it"
            )
        }
        webhook.timeout = try values.number("webhook.timeout_seconds", default: webhook.timeout, in: 1...300)
        webhook.maxBackoff = try values.number("webhook.max_backoff_seconds", default: webhook.maxBackoff, in: 5...604_800)
    }

    private mutating func readProgram(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let zoneSetting = try values.text("program.time_zone", rule: "must be an IANA time zone name such as America/New_York")
        let identifier = zoneSetting?.text ?? "America/New_York"
        guard let zone = Self.ianaTimeZone(identifier) else {
            let rule = "must be an IANA time zone name such as America/New_York"
            if let zoneSetting { throw values.invalid("program.time_zone", rule, zoneSetting) }
            throw ConfigurationError(key: "program.time_zone", message: "the default America/New_York is unknown to this system; install tzdata")
        }
        program.timeZone = zone
        program.catchUpGraceDays = try values.integer("program.catch_up_grace_days", default: program.catchUpGraceDays, in: 0...365)
        program.eocRequiredWeeks = try values.integer("program.eoc_required_weeks", default: program.eocRequiredWeeks, in: 0...99)
        let lateJoiners = try values.choice("program.eoc_late_joiners", default: program.eocLateJoiners.rawValue,
                                            among: SubmissionRules.LateJoiners.allCases.map(\.rawValue))
        program.eocLateJoiners = SubmissionRules.LateJoiners(rawValue: lateJoiners) ?? .strict
        program.feedbackDue = try TimeInterval(values.integer("program.feedback_due_hours", default: 48, in: 1...8760) * 3600)
        program.eocFeedbackDueBusinessDays = try values.integer(
            "program.eoc_feedback_due_business_days", default: program.eocFeedbackDueBusinessDays, in: 1...60)
        program.placementDue = try TimeInterval(values.integer("program.placement_due_hours", default: 48, in: 1...8760) * 3600)
        if let setting = values.optionalText("program.holidays") {
            var holidays = Set<LocalDate>()
            for part in setting.text.split(separator: ",") {
                let text = part.trimmingCharacters(in: .whitespaces)
                guard let date = LocalDate(text), Self.isRealDate(date) else {
                    throw values.invalid("program.holidays", "must be dates YYYY-MM-DD separated by commas", setting)
                }
                holidays.insert(date)
            }
            program.holidays = holidays
        }
    }

    /// `notifications.deadline_reminders` (`2@18:00,1@18:00`, `none`), `notifications.quiet_hours` (`21:00-08:00`)
    /// and `notifications.coach_digest` (`07:00`, `none`).
    private mutating func readNotifications(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        var reminders = NotificationSchedule.standard.reminders
        if let setting = values.optionalText("notifications.deadline_reminders") {
            let rule = "must be reminders DAYS@HH:MM separated by commas (days before the deadline's day, 0–6), or none"
            reminders = []
            if setting.text.lowercased() != "none" {
                for part in setting.text.split(separator: ",") {
                    let pieces = part.trimmingCharacters(in: .whitespaces).split(separator: "@")
                    guard pieces.count == 2, let days = Int(pieces[0]), (0...6).contains(days), let at = LocalTime(String(pieces[1])) else {
                        throw values.invalid("notifications.deadline_reminders", rule, setting)
                    }
                    reminders.append(.init(daysBefore: days, at: at))
                }
            }
        }
        var quiet: NotificationSchedule.QuietHours? = NotificationSchedule.standardQuietHours
        if let setting = values.optionalText("notifications.quiet_hours") {
            if setting.text.lowercased() == "none" {
                quiet = nil
            } else {
                let pieces = setting.text.split(separator: "-")
                guard pieces.count == 2,
                      let start = LocalTime(pieces[0].trimmingCharacters(in: .whitespaces)),
                      let end = LocalTime(pieces[1].trimmingCharacters(in: .whitespaces)), start != end else {
                    throw values.invalid("notifications.quiet_hours", "must be HH:MM-HH:MM in each student's own time zone (e.g. 22:00-07:00), or none", setting)
                }
                quiet = .init(start: start, end: end)
            }
        }
        var digest: DailyMoment? = NotificationSchedule.standardCoachDigest
        if let setting = values.optionalText("notifications.coach_digest") {
            if setting.text.lowercased() == "none" {
                digest = nil
            } else if let at = LocalTime(setting.text.trimmingCharacters(in: .whitespaces)) {
                digest = DailyMoment(at: at)
            } else {
                throw values.invalid("notifications.coach_digest", "must be a local time HH:MM in the programme's time zone (e.g. 07:00), or none", setting)
            }
        }
        program.notificationSchedule = NotificationSchedule(reminders: reminders, quietHours: quiet, coachDigest: digest)
    }

    /// Whether `date` exists on the Gregorian calendar (no 30 February).
    static func isRealDate(_ date: LocalDate) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let noon = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12)) else {
            return false
        }
        let parts = calendar.dateComponents([.year, .month, .day], from: noon)
        return parts.year == date.year && parts.month == date.month && parts.day == date.day
    }

    /// The zone named `identifier` if it is an IANA name: abbreviations such as `EST` or
    /// `GMT+5`, which Foundation also accepts, are refused because they have no DST rules.
    static func ianaTimeZone(_ identifier: String) -> TimeZone? {
        IANAZone.zone(identifier)
    }

    private mutating func readAttempts(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        let limit = try values.integer("attempts.limit", default: attemptWindow.limit, in: 1...100)
        let days = try values.integer("attempts.window_days", default: 7, in: 1...365)
        do {
            attemptWindow = try AttemptWindow(limit: limit, length: TimeInterval(days * 86_400))
        } catch {
            throw ConfigurationError(key: "attempts.limit", message: error.description)
        }
    }

    private mutating func readAudio(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        audioLimits.minDurationSeconds = try values.number("audio.min_duration_seconds", default: audioLimits.minDurationSeconds, in: 0...3600)
        audioLimits.maxDurationSeconds = try values.number("audio.max_duration_seconds", default: audioLimits.maxDurationSeconds, in: 1...86_400)
        try Self.checkOrder(&values, "audio.min_duration_seconds", audioLimits.minDurationSeconds, "audio.max_duration_seconds", audioLimits.maxDurationSeconds)
        audioLimits.minSpeechSeconds = try values.number("audio.min_speech_seconds", default: audioLimits.minSpeechSeconds, in: 0...3600)
        audioLimits.minSpeechRatio = try values.number("audio.min_speech_ratio", default: audioLimits.minSpeechRatio, in: 0...1)
        audioLimits.minLoudnessLUFS = try values.number("audio.min_loudness_lufs", default: audioLimits.minLoudnessLUFS, in: -70...0)
        encoder.bitrate = try values.integer("audio.bitrate", default: encoder.bitrate, in: 6000...510_000)
        encoder.complexity = try values.integer("audio.complexity", default: encoder.complexity, in: 0...10)
        encoder.signal = try values.choice("audio.signal", default: encoder.signal, among: EncoderConfiguration.signals)
        encoder.targetLoudnessLUFS = try values.number("audio.target_loudness_lufs", default: encoder.targetLoudnessLUFS, in: -70...0)
        encoder.peakCeilingDBFS = try values.number("audio.peak_ceiling_dbfs", default: encoder.peakCeilingDBFS, in: -30...0)
    }

    private mutating func readFeedback(_ values: inout ConfigurationValues) throws(ConfigurationError) {
        feedbackLimits.minDurationSeconds = try values.number("feedback.min_duration_seconds", default: feedbackLimits.minDurationSeconds, in: 0...3600)
        feedbackLimits.maxDurationSeconds = try values.number("feedback.max_duration_seconds", default: feedbackLimits.maxDurationSeconds, in: 1...86_400)
        try Self.checkOrder(&values, "feedback.min_duration_seconds", feedbackLimits.minDurationSeconds, "feedback.max_duration_seconds", feedbackLimits.maxDurationSeconds)
    }

    /// Requires `minimum < maximum`, blaming the maximum when it was set and the minimum otherwise.
    private static func checkOrder(
        _ values: inout ConfigurationValues, _ minimumKey: String, _ minimum: Double, _ maximumKey: String, _ maximum: Double
    ) throws(ConfigurationError) {
        guard minimum >= maximum else { return }
        if let setting = values.setting(of: maximumKey) {
            throw values.invalid(maximumKey, "must be greater than \(minimumKey) (\(ConfigurationValues.format(minimum)))", setting)
        }
        if let setting = values.setting(of: minimumKey) {
            throw values.invalid(minimumKey, "must be less than \(maximumKey) (\(ConfigurationValues.format(maximum)))", setting)
        }
    }
}
