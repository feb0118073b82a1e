/// The least severe log level that is printed (`log.level`).
///
/// Raw values are swift-log's `Logger.Level` raw values, so `Logger.Level(rawValue: level.rawValue)`
/// always succeeds.
public enum LogLevel: String, Sendable, Hashable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}
