/// Sample peak and clipping count of a stream.
struct SignalMeter {
    /// Samples at or above this magnitude count as clipped (−0.0087 dBFS): a recorder that
    /// overloads pins its samples at full scale, and resampling to 48 kHz keeps them within it.
    static let clipLevel: Float = 0.999

    private(set) var peak: Float = 0
    private(set) var clipped = 0
    private(set) var samples = 0

    mutating func add(_ block: UnsafeBufferPointer<Float>) {
        guard !block.isEmpty else { return }
        let (minimum, maximum) = SampleScan.extrema(block)
        peak = max(peak, -minimum, maximum)
        // Most blocks have no sample near full scale: count only when one might be.
        if max(-minimum, maximum) >= Self.clipLevel {
            clipped += SampleScan.count(block, atLeast: Self.clipLevel)
        }
        samples += block.count
    }

    /// Sample peak in dBFS, `nil` for digital silence.
    var peakDBFS: Double? { peak > 0 ? 20 * log10(Double(peak)) : nil }

    var clippedRatio: Double { samples > 0 ? Double(clipped) / Double(samples) : 0 }
}

#if canImport(Glibc)
import Glibc
#endif
