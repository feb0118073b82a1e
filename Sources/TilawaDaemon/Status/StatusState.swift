/// A verdict of `tilawa status`, with the exit codes of a Nagios plugin.
public enum StatusState: String, Codable, Sendable, CaseIterable {
    /// Every check passes.
    case ok
    /// Something needs attention soon.
    case warning
    /// Something is broken now.
    case critical
    /// Something could not be examined.
    case unknown

    /// The process exit code: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
    public var exitCode: Int32 {
        switch self {
        case .ok: 0
        case .warning: 1
        case .critical: 2
        case .unknown: 3
        }
    }

    /// How bad it is, for picking the worst: OK < WARNING < UNKNOWN < CRITICAL.
    ///
    /// CRITICAL outranks UNKNOWN (as in Nagios' own aggregation): a daemon that is down
    /// deserves the page even when the database could not be read as well.
    var severity: Int {
        switch self {
        case .ok: 0
        case .warning: 1
        case .unknown: 2
        case .critical: 3
        }
    }

    /// The worst of `states`; OK when there are none.
    public static func worst(_ states: some Sequence<StatusState>) -> StatusState {
        states.max { $0.severity < $1.severity } ?? .ok
    }

    /// `OK`, `WARNING`, `CRITICAL`, `UNKNOWN`.
    public var label: String { rawValue.uppercased() }
}
