import Foundation
import Synchronization

/// A test-only clock for a child daemon: programme time starts at `start` when the daemon
/// first reads its clock (during start-up, so a slow start costs no programme time) and runs
/// `rate` times as fast as the real clock. A test sees a semester's scheduled notifications
/// in a minute, across SIGKILLs and restarts of a real `tilawa serve` (libfaketime stalls
/// Swift's `Task.sleep`, so time cannot be faked under the process).
///
/// Set with `TILAWA_TEST_CLOCK=START,RATE` (unix seconds; a factor from 1 to 10⁷). A restart
/// given the programme instant it was killed at resumes there; a later `START` is a daemon
/// that was down over that span. Honoured by debug builds only (`tilawa serve` in a release
/// build ignores it), with a warning in the log. The test reads programme time from `/readyz` (`started_at` + `uptime_seconds`).
public final class AcceleratedClock: Sendable {
    /// The environment variable.
    public static let variable = "TILAWA_TEST_CLOCK"

    public let start: Date
    public let rate: Double
    /// The real instant of the first reading.
    private let anchor = Mutex<Date?>(nil)

    public init(start: Date, rate: Double) {
        self.start = start
        self.rate = rate
    }

    /// The clock the environment asks for; nil when unset or malformed (a malformed value is
    /// ignored: it can only come from a test).
    public convenience init?(environment: [String: String]) {
        guard let text = environment[Self.variable] else { return nil }
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let start = parts[0], let rate = parts[1], start.isFinite, (1...10_000_000).contains(rate) else {
            return nil
        }
        self.init(start: Date(timeIntervalSince1970: start), rate: rate)
    }

    /// Programme time at the real instant `real` (the first reading anchors the clock).
    public func programmeTime(at real: Date) -> Date {
        let anchor = anchor.withLock { anchor in
            if anchor == nil { anchor = real }
            return anchor ?? real
        }
        return start.addingTimeInterval(real.timeIntervalSince(anchor) * rate)
    }

    /// Programme time now.
    public func now() -> Date { programmeTime(at: Date()) }

    /// The programme clock's tick: one programme minute, but at least 20 ms of real time.
    public var tickInterval: Duration {
        .milliseconds(max(20, Int((60_000 / rate).rounded())))
    }
}
