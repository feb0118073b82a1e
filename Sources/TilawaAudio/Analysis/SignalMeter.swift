/// Sample peak and clipping count of a stream.
struct SignalMeter {
    /// Samples at or above this magnitude count as clipped (−0.0087 dBFS): a recorder that
    /// overloads pins its samples at full scale, and resampling to 48 kHz keeps them within it.
    static let clipLevel: Float = 0.999

    private(set) var peak: Float = 0
    private(set) var clipped = 0
    private(set) var samples = 0

    mutating func add(_ block: UnsafeBufferPointer<Float>) {
        var peak = self.peak
        var clipped = 0
        for sample in block {
            let magnitude = abs(sample)
            peak = max(peak, magnitude)
            if magnitude >= Self.clipLevel { clipped += 1 }
        }
        self.peak = peak
        self.clipped += clipped
        samples += block.count
    }

    /// Sample peak in dBFS, `nil` for digital silence.
    var peakDBFS: Double? { peak > 0 ? 20 * log10(Double(peak)) : nil }

    var clippedRatio: Double { samples > 0 ? Double(clipped) / Double(samples) : 0 }
}

#if canImport(Glibc)
import Glibc
#endif
