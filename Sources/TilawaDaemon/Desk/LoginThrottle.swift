import Foundation
import Synchronization

/// Slows repeated bad login-link exchanges, per link and per client address: past
/// `maxFailures` failures within `window`, further exchanges from that address (or for that
/// link) are refused at once with 429 until the oldest failure leaves the window. A guessed
/// secret has 256 bits, so this is not what keeps links safe; it keeps a client that hammers
/// the route (or a scanner replaying a used link) from costing a database write each time.
///
/// In memory, per process: a restart forgets it, and with several nodes each counts its own.
///
/// `Sendable` on its own: all state is in a `Mutex`.
final class LoginThrottle: Sendable {
    let maxFailures: Int
    let window: TimeInterval
    private let failures = Mutex<[String: [Date]]>([:])

    init(maxFailures: Int = 10, window: TimeInterval = 600) {
        self.maxFailures = maxFailures
        self.window = window
    }

    /// Seconds to wait before `keys` (an address, a link's hash) may try again; nil: now.
    func retryAfter(_ keys: [String], now: Date) -> Int? {
        failures.withLock { table in
            keys.compactMap { key -> Int? in
                let recent = (table[key] ?? []).filter { now.timeIntervalSince($0) < window }
                table[key] = recent.isEmpty ? nil : recent
                guard recent.count >= maxFailures, let oldest = recent.first else { return nil }
                return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
            }.max()
        }
    }

    /// Notes a failed exchange for each of `keys`.
    func fail(_ keys: [String], now: Date) {
        failures.withLock { table in
            // Bounded: a flood of distinct addresses or links cannot grow the table without end.
            if table.count > 10_000 { table = table.filter { $0.value.contains { now.timeIntervalSince($0) < window } } }
            for key in keys { table[key, default: []].append(now) }
        }
    }
}
