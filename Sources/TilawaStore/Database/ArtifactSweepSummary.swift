import Foundation
import GRDB

/// What the daemon's last full artifact sweep found (kept in the `meta` table).
public struct ArtifactSweepSummary: Sendable, Equatable {
    /// Rows pointing to a file that did not exist.
    public var missing: Int
    /// When the sweep ran.
    public var sweptAt: Date

    /// Creates a summary.
    public init(missing: Int, sweptAt: Date) {
        self.missing = missing
        self.sweptAt = sweptAt
    }
}
