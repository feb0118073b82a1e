/// The values of a window that slides along a series, kept in ascending order, for its percentiles.
///
/// Each step inserts the values that enter the window and removes those that leave it, by
/// binary search and a short move: O(window) per step, where sorting every window anew costs
/// O(window · log window) and an allocation. The speech detector takes the noise floors of the
/// 3 s before and after every 200 ms of a recording this way.
///
/// Values must be finite (the detector's frame energies are: the decoder rejects non-finite
/// samples), or a value that leaves may not be found and stays.
struct SortedWindow {
    /// The window's values, ascending.
    private(set) var values: [Float] = []
    /// The positions of the series the window holds.
    private(set) var range = 0..<0

    init(capacity: Int = 0) {
        values.reserveCapacity(capacity)
    }

    /// Moves the window to `next`, whose bounds are each at or past the current ones.
    mutating func slide(to next: Range<Int>, over series: [Float]) {
        assert(next.lowerBound >= range.lowerBound && next.upperBound >= range.upperBound)
        for value in series[range.lowerBound..<min(next.lowerBound, range.upperBound)] {
            let index = firstIndex(notBelow: value)
            if index < values.count && values[index] == value { values.remove(at: index) }
        }
        for value in series[max(range.upperBound, next.lowerBound)..<next.upperBound] {
            values.insert(value, at: firstIndex(notBelow: value))
        }
        range = next
    }

    private func firstIndex(notBelow value: Float) -> Int {
        var low = 0, high = values.count
        while low < high {
            let middle = (low + high) / 2
            if values[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
