import Configuration
import Foundation

/// Reads each key once from `ConfigurationSources`, checks it, and turns a bad value into a
/// `ConfigurationError` naming the key, the rule, the value and its source.
///
/// Keeps the settings it found, so that rules across keys (minimum below maximum) can
/// blame the one that was set, and the keys it read, so a test can check the loader
/// reads exactly the catalogue.
struct ConfigurationValues {
    let sources: ConfigurationSources
    private(set) var readKeys: [String] = []
    private var found: [String: ConfigurationSources.Setting] = [:]

    init(sources: ConfigurationSources) {
        self.sources = sources
    }

    /// The setting `key` was read from, nil when it has its default.
    func setting(of key: String) -> ConfigurationSources.Setting? {
        found[key]
    }

    /// An integer within `range`: as the source converts it (YAML also reads `0x1F`), or
    /// as plain decimal text (a quoted YAML `"8080"`).
    mutating func integer(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        let rule = range.upperBound == .max
            ? "must be an integer of \(range.lowerBound) or more"
            : "must be an integer from \(range.lowerBound) to \(range.upperBound)"
        guard let setting = read(key, as: .int) else { return defaultValue }
        let value: Int? = if case .int(let converted)? = setting.content { converted } else { Int(setting.text) }
        guard let value, range.contains(value) else { throw invalid(key, rule, setting) }
        return value
    }

    /// A finite number within `range`; integers are accepted, and quoted YAML numbers.
    mutating func number(_ key: String, default defaultValue: Double, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        let rule = "must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
        guard let setting = read(key, as: .double) else { return defaultValue }
        let value: Double? = if case .double(let converted)? = setting.content { converted } else { Double(setting.text) }
        guard let value, value.isFinite, range.contains(value) else { throw invalid(key, rule, setting) }
        return value
    }

    /// One of `choices`, exactly as written (lower case).
    mutating func choice(_ key: String, default defaultValue: String, among choices: [String]) throws(ConfigurationError) -> String {
        guard let setting = read(key, as: .string) else { return defaultValue }
        guard choices.contains(setting.text) else {
            let list = choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
            throw invalid(key, "must be one of \(list)", setting)
        }
        return setting.text
    }

    /// A non-empty string, or nil when not set.
    mutating func text(_ key: String, rule: String = "must not be empty") throws(ConfigurationError) -> ConfigurationSources.Setting? {
        guard let setting = read(key, as: .string) else { return nil }
        guard !setting.text.isEmpty else { throw invalid(key, rule, setting) }
        return setting
    }

    /// A string where an empty value means "none" (`TILAWA_WEBHOOK_URL=` switches a file's URL off).
    mutating func optionalText(_ key: String) -> ConfigurationSources.Setting? {
        guard let setting = read(key, as: .string), !setting.text.isEmpty else { return nil }
        return setting
    }

    /// A path made absolute against `workingDirectory`, or nil when not set.
    mutating func path(_ key: String, workingDirectory: String) throws(ConfigurationError) -> String? {
        guard let setting = try text(key, rule: "must be a path, not empty") else { return nil }
        guard !setting.text.contains("\0") else { throw invalid(key, "must be a path", setting) }
        return ConfigurationPath.absolute(setting.text, in: workingDirectory)
    }

    /// The error for a value that breaks `rule`.
    func invalid(_ key: String, _ rule: String, _ setting: ConfigurationSources.Setting) -> ConfigurationError {
        ConfigurationError(key: key, message: "\(rule), got \(ConfigurationError.quoted(setting.text)) (from \(setting.origin))")
    }

    private mutating func read(_ key: String, as type: ConfigType) -> ConfigurationSources.Setting? {
        readKeys.append(key)
        let setting = sources.setting(key, as: type)
        found[key] = setting
        return setting
    }

    /// `10` rather than `10.0`, `0.1` as is.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
