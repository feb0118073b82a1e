import Foundation
import GRDB

/// How far behind notification delivery is: for the backlog gauges and `tilawa status`.
public struct OutboxSummary: Sendable, Equatable {
    /// Events not yet delivered.
    public var count: Int
    /// When the oldest undelivered event happened; nil when there is none.
    public var oldestOccurredAt: Date?
    /// Seconds from the oldest undelivered event to `now` (never negative); nil when there is none.
    public var oldestAge: TimeInterval?

    /// Creates a summary.
    public init(count: Int, oldestOccurredAt: Date?, oldestAge: TimeInterval?) {
        self.count = count
        self.oldestOccurredAt = oldestOccurredAt
        self.oldestAge = oldestAge
    }
}
