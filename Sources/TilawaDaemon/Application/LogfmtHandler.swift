import Foundation
import Logging

/// swift-log to stdout, one event per line as `key=value` (logfmt), for journald.
///
/// `level=info msg="upload accepted" submission=sub_01… student=s_3f9a0c1d2e4b`. No timestamp:
/// journald stamps every line (set `timestamps: true` when running by hand).
public struct LogfmtHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let label: String
    let timestamps: Bool

    public init(label: String, level: Logger.Level, timestamps: Bool = false) {
        self.label = label
        logLevel = level
        self.timestamps = timestamps
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = ""
        if timestamps { line += "ts=\(Date().formatted(.iso8601)) " }
        line += "level=\(event.level) msg=\(Self.quote("\(event.message)"))"
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.quote("\(merged[key]!)"))"
        }
        line += "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// Quotes a value when it has spaces, quotes, `=` or control characters; keeps it one line.
    static func quote(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline || $0 == "\\" }
        guard needsQuotes else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}

extension LogfmtHandler {
    /// Makes every logger of the process write logfmt lines at the configured level; with
    /// timestamps only when not under journald (which stamps every line itself).
    public static func bootstrap(level: LogLevel, environment: [String: String]) {
        let level = Logger.Level(rawValue: level.rawValue) ?? .info
        let timestamps = environment["JOURNAL_STREAM"] == nil
        LoggingSystem.bootstrap { label in LogfmtHandler(label: label, level: level, timestamps: timestamps) }
    }
}
