import Foundation
import GRDB

/// A sweep stopped part-way because the daemon is shutting down; the next one starts afresh.
public struct SweepInterrupted: Error, Sendable {
    public init() {}
}
