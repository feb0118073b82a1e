import Foundation
import GRDB

/// What a sweep found and did.
public struct SweepReport: Sendable, Equatable {
    /// Staging leftovers removed (uploads cut off by a crash or a disconnect).
    public var stagingRemoved = 0
    /// Artifact files no row points to, removed (and temporary files of interrupted writes).
    public var orphansRemoved = 0
    /// Originals past their retention, removed after their row stopped pointing to them.
    public var originalsPruned = 0
    /// Rows that point to a file that does not exist (reported by `status`).
    public var missing: [String] = []

    public init() {}
}
