import Foundation

/// How many attempts a student has used in the rolling window, and when the next one opens.
///
/// Encodes as DESIGN §4 `attempts`: `{used, limit, remaining, next_attempt_at}`
/// (`next_attempt_at` is null while an attempt is available; set the encoder's date
/// strategy to ISO 8601 for RFC 3339 output).
public struct AttemptStatus: Sendable, Hashable, Codable {
    /// Counted recordings in the window.
    public let used: Int
    /// The configured limit (default 2).
    public let limit: Int
    /// `max(0, limit − used)`.
    public let remaining: Int
    /// When `remaining` next becomes at least 1; nil when an attempt is available now.
    public let nextAttemptAt: Date?
    /// Of `remaining`, the recordings back-office grants allow beyond the window (DESIGN §11).
    public let granted: Int

    /// A status; `AttemptWindow.status` computes these, tests and stores may build them.
    public init(used: Int, limit: Int, remaining: Int, nextAttemptAt: Date?, granted: Int = 0) {
        self.used = used
        self.limit = limit
        self.remaining = remaining
        self.nextAttemptAt = nextAttemptAt
        self.granted = granted
    }

    /// This status with `count` granted recordings added to `remaining` (none when `count` ≤ 0).
    /// A student with a grant can record now, so `next_attempt_at` is then null.
    public func granting(_ count: Int) -> AttemptStatus {
        guard count > 0 else { return self }
        return AttemptStatus(used: used, limit: limit, remaining: remaining + count, nextAttemptAt: nil, granted: count)
    }

    private enum CodingKeys: String, CodingKey {
        case used, limit, remaining, granted
        case nextAttemptAt = "next_attempt_at"
    }

    /// Encodes all four members, `next_attempt_at` as null when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(used, forKey: .used)
        try container.encode(limit, forKey: .limit)
        try container.encode(remaining, forKey: .remaining)
        // Clients test for the member; synthesized encoding would omit it when nil.
        try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(granted, forKey: .granted)
    }
}
