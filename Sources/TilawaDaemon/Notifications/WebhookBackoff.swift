import Foundation

/// How long a failed webhook delivery waits before its next try (DESIGN §7).
///
/// After the first failure 5 s, then 30 s, 2 min, 10 min, 30 min, and 1 h for every
/// failure after that; never more than the cap (`webhook.max_backoff_seconds`). Each wait
/// is spread by ±20 % so that many events failing together (the receiver was down) do not
/// all come back at the same instant; the cap is applied after the spread, so it is a
/// true ceiling.
public enum WebhookBackoff {
    /// The waits after the first, second, … failure; the last repeats.
    public static let standardSchedule: [TimeInterval] = [5, 30, 120, 600, 1_800, 3_600]
    /// The spread: each wait is multiplied by a factor in [1 − jitter, 1 + jitter).
    public static let jitter = 0.2

    /// The wait after failure number `attempt` (1 = the first failure).
    ///
    /// - Parameters:
    ///   - attempt: Failed attempts so far, counting this one; values below 1 count as 1.
    ///   - cap: The longest wait (seconds); the result never exceeds it.
    ///   - random: A number in [0, 1): 0 gives the shortest wait (−20 %), 0.5 the schedule's
    ///     own value, values near 1 the longest (+20 %).
    ///   - schedule: The unspread waits; tests pass short ones. Must not be empty.
    public static func delay(
        attempt: Int, cap: TimeInterval, random: Double, schedule: [TimeInterval] = standardSchedule
    ) -> TimeInterval {
        guard !schedule.isEmpty else { return max(0, cap) }
        let base = schedule[min(max(attempt, 1), schedule.count) - 1]
        let unit = min(max(random, 0), 1)
        let factor = 1 + jitter * (2 * unit - 1)
        return max(0, min(base * factor, cap))
    }
}
