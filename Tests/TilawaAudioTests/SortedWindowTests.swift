import Testing
import TilawaTestSupport
@testable import TilawaAudio

/// The sliding window against sorting each window anew, as the speech detector used to.
@Suite("Sorted sliding window")
struct SortedWindowTests {
    /// Windows of the detector's shape (the `width` values before or from a position, stepping
    /// by `hop`) over series with many repeated values, checked at every step.
    @Test("Each step holds exactly the window's values, ascending",
          arguments: [(width: 150, hop: 10, count: 2_000), (width: 5, hop: 3, count: 40), (width: 1, hop: 1, count: 9),
                      (width: 7, hop: 7, count: 50), (width: 4, hop: 9, count: 60), (width: 150, hop: 10, count: 120)])
    func matchesSortedWindows(width: Int, hop: Int, count: Int) {
        var random = SeededGenerator(seed: UInt64(width * 1_000 + count))
        // Coarse levels repeat often; the edges of the detector's range appear too.
        let series: [Float] = (0..<count).map { _ in
            Bool.random(using: &random) ? Float(Int.random(in: -8...8, using: &random)) * 10 : Float.random(in: -120...0, using: &random)
        }
        var before = SortedWindow(), after = SortedWindow()
        var start = 0
        while start < count {
            let behind = max(0, start - width)..<start, ahead = start..<min(count, start + width)
            before.slide(to: behind, over: series)
            after.slide(to: ahead, over: series)
            #expect(before.values == series[behind].sorted(), "before \(behind)")
            #expect(after.values == series[ahead].sorted(), "after \(ahead)")
            start += hop
        }
    }
}
