/// Which bytes of a file a client has fetched, over any number of requests in any order
/// (players read the end of a file first), as sorted, disjoint, non-adjacent half-open ranges.
///
/// A coach's reply counts as listened once its student has fetched `listenedShare` of it.
public struct ByteCoverage: Sendable, Hashable, Codable {
    /// The share of a reply's bytes that makes it `listened` (95 %).
    public static let listenedShare = 0.95

    /// The ranges, sorted and merged.
    public private(set) var ranges: [Range<Int>]

    /// An empty coverage, or `ranges` merged.
    public init(_ ranges: [Range<Int>] = []) {
        self.ranges = []
        for range in ranges { add(range) }
    }

    /// Adds `range`, merging it with every range it overlaps or touches.
    public mutating func add(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var merged = range
        var kept: [Range<Int>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound < merged.lowerBound || merged.upperBound < existing.lowerBound {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        kept.append(merged)
        ranges = kept.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// Bytes covered.
    public var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// Whether at least `listenedShare` of a file of `size` bytes is covered.
    public func isListened(size: Int) -> Bool {
        size > 0 && Double(count) >= Self.listenedShare * Double(size)
    }
}
