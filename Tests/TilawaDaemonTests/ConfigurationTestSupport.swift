import Foundation
import Testing
import TilawaCore
@testable import TilawaDaemon

/// A fresh working directory for one configuration test; `remove()` deletes it.
struct ConfigurationScratch {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("tilawa-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Writes `text` to `relative` (directories created) and returns the absolute path.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String {
        try write(relative, bytes: Array(text.utf8))
    }

    @discardableResult
    func write(_ relative: String, bytes: [UInt8]) throws -> String {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func makeDirectory(_ relative: String) throws -> String {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Loads with this directory as the working directory.
    func load(file: String? = nil, environment: [String: String] = [:]) throws(ConfigurationError) -> TilawaConfiguration {
        try TilawaConfiguration.load(file: file, environment: environment, workingDirectory: root)
    }

    /// The defaults for this working directory.
    func defaults(stateDirectory: String = "./var") -> TilawaConfiguration {
        TilawaConfiguration(stateDirectory: stateDirectory, workingDirectory: root)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// The repository checkout the tests run from (for the shipped sample and documentation).
let configurationRepositoryRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// The value a numeric key ended up with, in the key's own unit (hours for `*_hours`, …).
func numericField(_ key: String, of config: TilawaConfiguration) -> Double? {
    switch key {
    case "http.port": Double(config.http.port)
    case "http.max_upload_bytes": Double(config.http.maxUploadBytes)
    case "http.upload_timeout_seconds": config.http.uploadTimeout
    case "http.max_concurrent_uploads": Double(config.http.maxConcurrentUploads)
    case "http.max_uploads_per_principal": Double(config.http.maxUploadsPerPrincipal)
    case "http.coach_upload_slots": Double(config.http.coachUploadSlots)
    case "http.min_upload_bytes_per_second": Double(config.http.minUploadBytesPerSecond)
    case "http.min_upload_rate_window_seconds": config.http.minUploadRateWindow
    case "auth.default_token_ttl_seconds": config.auth.defaultTokenTTL
    case "dropbox.settle_seconds": config.dropbox.settleTime
    case "dropbox.poll_interval_seconds": config.dropbox.pollInterval
    case "dropbox.max_reply_bytes": Double(config.dropbox.maxReplyBytes)
    case "webhook.timeout_seconds": config.webhook.timeout
    case "webhook.max_backoff_seconds": config.webhook.maxBackoff
    case "program.catch_up_grace_days": Double(config.program.catchUpGraceDays)
    case "program.eoc_required_weeks": Double(config.program.eocRequiredWeeks)
    case "program.feedback_due_hours": config.program.feedbackDue / 3600
    case "attempts.limit": Double(config.attemptWindow.limit)
    case "attempts.window_days": config.attemptWindow.length / 86_400
    case "audio.min_duration_seconds": config.audioLimits.minDurationSeconds
    case "audio.max_duration_seconds": config.audioLimits.maxDurationSeconds
    case "audio.min_speech_seconds": config.audioLimits.minSpeechSeconds
    case "audio.min_speech_ratio": config.audioLimits.minSpeechRatio
    case "audio.min_loudness_lufs": config.audioLimits.minLoudnessLUFS
    case "audio.bitrate": Double(config.encoder.bitrate)
    case "audio.complexity": Double(config.encoder.complexity)
    case "audio.target_loudness_lufs": config.encoder.targetLoudnessLUFS
    case "audio.peak_ceiling_dbfs": config.encoder.peakCeilingDBFS
    case "feedback.min_duration_seconds": config.feedbackLimits.minDurationSeconds
    case "feedback.max_duration_seconds": config.feedbackLimits.maxDurationSeconds
    case "workers.encode": Double(config.encodeWorkers)
    case "storage.originals_retention_days": config.storage.originalsRetention / 86_400
    case "storage.min_free_bytes": Double(config.storage.minFreeBytes)
    case "storage.low_free_bytes": Double(config.storage.lowFreeBytes)
    case "uploads.max_offline_hours": config.uploads.maxOffline / 3_600
    case "uploads.expire_hours": config.uploads.expiry / 3_600
    case "uploads.max_open_per_student": Double(config.uploads.maxOpenPerStudent)
    case "uploads.staging_budget_bytes": Double(config.uploads.stagingBudgetBytes)
    case "submissions.withdraw_minutes": Double(config.submissions.withdrawMinutes)
    case "comments.max_per_minute": Double(config.comments.maxPerMinute)
    case "desk.session_days": Double(config.desk.sessionDays)
    case "desk.session_max_days": Double(config.desk.sessionMaxDays)
    case "idempotency.retention_hours": config.idempotencyRetention / 3600
    case "privacy.adult_age": Double(config.privacy.adultAge)
    case "privacy.erasure_grace_days": Double(config.privacy.erasureGraceDays)
    default: nil
    }
}

/// `key`'s environment variable (the catalogue's own mapping).
func environmentName(_ key: String) -> String {
    ConfigurationKey.all.first { $0.name == key }?.environmentVariable ?? "UNKNOWN_KEY_\(key)"
}
