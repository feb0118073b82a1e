/// The level of one block as it was recorded, for the meter.
public struct CaptureLevel: Sendable, Equatable {
    /// Peaks at or above this are shown as clipping (−0.1 dBFS): a microphone preamp that
    /// overloads pins its samples at full scale, and so does a gain set too high.
    public static let clipThresholdDBFS = -0.1

    /// Seconds recorded up to the end of this block.
    public var elapsedSeconds: Double
    /// The block's sample peak in dBFS; nil for digital silence.
    public var peakDBFS: Double?
    /// Whether the peak reached `clipThresholdDBFS`.
    public var clipped: Bool
    /// Whether speech has begun (`CaptureStopDetector`).
    public var speechHasBegun: Bool

    /// A level from its figures.
    public init(elapsedSeconds: Double, peakDBFS: Double?, clipped: Bool, speechHasBegun: Bool) {
        self.elapsedSeconds = elapsedSeconds
        self.peakDBFS = peakDBFS
        self.clipped = clipped
        self.speechHasBegun = speechHasBegun
    }

    /// The level of `block`, recorded up to `elapsedSeconds`.
    public init(block: UnsafeBufferPointer<Float>, elapsedSeconds: Double, speechHasBegun: Bool) {
        var peak: Float = 0
        for sample in block { peak = max(peak, abs(sample)) }
        let decibels: Double? = peak > 0 ? 20 * log10(Double(peak)) : nil
        self.init(elapsedSeconds: elapsedSeconds, peakDBFS: decibels,
                  clipped: (decibels ?? -.infinity) >= Self.clipThresholdDBFS, speechHasBegun: speechHasBegun)
    }
}

#if canImport(Glibc)
import Glibc
#endif
