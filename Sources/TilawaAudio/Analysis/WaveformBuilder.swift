import Foundation

/// Builds `WaveformPeaks` from a stream of blocks in constant memory per pixel.
///
/// A pixel's values are its smallest and largest sample scaled to 16 bits and then to 8
/// (`value >> 8`, as audiowaveform does). That scaling never decreases as the sample grows,
/// so the scaled minimum is the scale of the minimum: each pixel takes the extrema of its
/// samples (`SampleScan.extrema`, vectorised) and scales two numbers, not 960.
struct WaveformBuilder {
    let sampleRate: Int
    let samplesPerPixel: Int
    private var data: [Int8] = []
    private var low: Float = 0
    private var high: Float = 0
    private var filled = 0

    init(sampleRate: Int, samplesPerPixel: Int) {
        self.sampleRate = sampleRate
        self.samplesPerPixel = max(1, samplesPerPixel)
    }

    mutating func add(_ block: UnsafeBufferPointer<Float>) {
        var start = 0
        while start < block.count {
            let take = min(samplesPerPixel - filled, block.count - start)
            let (minimum, maximum) = SampleScan.extrema(UnsafeBufferPointer(rebasing: block[start..<(start + take)]))
            if filled == 0 {
                low = minimum
                high = maximum
            } else {
                low = min(low, minimum)
                high = max(high, maximum)
            }
            filled += take
            start += take
            if filled == samplesPerPixel { emit() }
        }
    }

    /// The 8-bit value of a sample: 16-bit (floor of ×32768, clamped), then its top byte.
    static func scaled(_ sample: Float) -> Int8 {
        guard !sample.isNaN else { return 0 }
        let sixteen = (sample * 32768).rounded(.down).clamped(to: -32768...32767)
        return Int8(Int(sixteen) >> 8)
    }

    private mutating func emit() {
        data.append(Self.scaled(low))
        data.append(Self.scaled(high))
        filled = 0
    }

    mutating func finish() -> WaveformPeaks {
        if filled > 0 { emit() }
        return WaveformPeaks(
            sampleRate: sampleRate, samplesPerPixel: samplesPerPixel, length: data.count / 2, data: data)
    }
}
