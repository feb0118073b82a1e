/// Consecutive ayahs of one surah, written `surah:first-last` (`1:1-7`) or `surah:ayah` (`2:255`).
public struct AyahRange: Sendable, Hashable, CustomStringConvertible {
    /// The surah, 1…114.
    public let surah: Int
    /// The first ayah, 1 or more.
    public let first: Int
    /// The last ayah, `first` or more.
    public let last: Int

    /// A range the caller has checked; `AyahRange.parseList(_:in:)` is the way in from text.
    public init(surah: Int, first: Int, last: Int) {
        self.surah = surah
        self.first = first
        self.last = last
    }

    /// `surah:first-last`, or `surah:ayah` for a single ayah: what `parseList` reads back.
    public var description: String {
        first == last ? "\(surah):\(first)" : "\(surah):\(first)-\(last)"
    }

    /// The ayah numbers of the range, in order.
    public var ayahs: ClosedRange<Int> {
        first...last
    }
}
