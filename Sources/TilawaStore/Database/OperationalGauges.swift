import Foundation
import GRDB
import TilawaCore

/// Counts for metrics gauges.
public struct OperationalGauges: Sendable, Equatable {
    public var queueDepth: Int
    public var awaitingFeedback: Int
    public var overdue: Int
    public var undeliveredEvents: Int
}
