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
    /// How many paths rows point to whose file does not exist (reported by `status`).
    public var missingCount = 0
    /// Bytes of the MP4 and CAF variants kept (no row counts them; `status` adds this figure).
    public var variantBytes: Int64 = 0
    /// The first of them (at most `missingExamples`), sorted: a lost disk must not make the
    /// sweep hold millions of paths.
    public var missing: [String] = []
    /// How many missing paths a report names.
    public static let missingExamples = 100

    public init() {}
}
