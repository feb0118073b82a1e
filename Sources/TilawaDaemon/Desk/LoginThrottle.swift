import Foundation
import Synchronization

/// Slows repeated bad exchanges of one login link: past `maxFailures` failures within
/// `window`, further exchanges of that link are refused at once with 429 until the oldest
/// failure leaves the window. A guessed secret has 256 bits, so this is not what keeps links
/// safe; it keeps a client (or a scanner) replaying a used or expired link from costing a
/// database write each time.
///
/// Keyed by the link, never by the client's address: behind the TLS proxy the desk needs,
/// every coach has the proxy's address, and ten junk requests from anyone would lock every
/// coach out (a well-formed but unknown link costs one indexed read, no write, so junk needs
/// no throttle of its own).
///
/// The table holds at most `maxKeys` links: past that, the links whose last failure is
/// oldest are forgotten first, so a flood of distinct links keeps memory flat.
///
/// In memory, per process: a restart forgets it, and with several nodes each counts its own.
///
/// `Sendable` on its own: all state is in a `Mutex`.
final class LoginThrottle: Sendable {
    let maxFailures: Int
    let window: TimeInterval
    let maxKeys: Int
    private let failures = Mutex<[String: [Date]]>([:])

    init(maxFailures: Int = 10, window: TimeInterval = 600, maxKeys: Int = 10_000) {
        self.maxFailures = maxFailures
        self.window = window
        self.maxKeys = maxKeys
    }

    /// Seconds to wait before `key` (a link's hash) may be tried again; nil: now.
    func retryAfter(_ key: String, now: Date) -> Int? {
        failures.withLock { table in
            let recent = (table[key] ?? []).filter { now.timeIntervalSince($0) < window }
            table[key] = recent.isEmpty ? nil : recent
            guard recent.count >= maxFailures, let oldest = recent.first else { return nil }
            return max(1, Int((window - now.timeIntervalSince(oldest)).rounded(.up)))
        }
    }

    /// Notes a failed exchange of `key`.
    func fail(_ key: String, now: Date) {
        failures.withLock { table in
            // At most the last `maxFailures` instants a key: older ones decide nothing.
            table[key, default: []].append(now)
            if let count = table[key]?.count, count > maxFailures { table[key]?.removeFirst(count - maxFailures) }
            guard table.count > maxKeys else { return }
            table = table.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
            if table.count > maxKeys {
                // Still a flood within the window: forget the keys least recently failed, down to
                // nine tenths of the bound so that a flood sorts once per thousand keys, not per key.
                let kept = table.sorted { ($0.value.last ?? .distantPast) > ($1.value.last ?? .distantPast) }.prefix(maxKeys * 9 / 10)
                table = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
            }
        }
    }

    /// How many links the table holds now.
    var count: Int { failures.withLock { $0.count } }
}
