
/// Decides, block by block, when a recording stops: the state machine of `CaptureSession`,
/// with no I/O, so it is tested alone.
///
/// The signal is cut into 20 ms frames (from the first sample, whatever the block sizes)
/// and each frame's RMS level is taken in dBFS (a full-scale square wave is 0 dBFS):
/// - **Speech has begun** once `speechMinimumSeconds` (200 ms) of consecutive frames are
///   at or above `speechThresholdDBFS` (−45 dBFS): quiet for a voice at arm's length from
///   a microphone, well above the hiss of an idle one, and long enough that a click or a
///   tap on the desk does not count.
/// - **Silence** is frames below `silenceThresholdDBFS` (−50 dBFS). Only once speech has
///   begun do they count, so waiting to start is never cut short; a frame at or above
///   −50 dBFS resets the count. The 5 dB between the two thresholds is hysteresis: a breath
///   between verses neither starts speech nor counts as silence.
/// - The recording stops after `stopAfterSilenceSeconds` of continuous silence (it keeps
///   that silence: the cut is at the end of the frame that completed it), at exactly
///   `maxSeconds` of audio, or on Ctrl-C (`decision(forInterrupts:)`).
public struct CaptureStopDetector: Sendable {
    /// Length of an analysis frame.
    public static let frameSeconds = 0.02
    /// A frame at or above this RMS level may be speech.
    public static let speechThresholdDBFS = -45.0
    /// How long consecutive speech-level frames must last before speech has begun.
    public static let speechMinimumSeconds = 0.2
    /// A frame below this RMS level is silence.
    public static let silenceThresholdDBFS = -50.0

    /// What the loop does next.
    public enum Decision: Sendable, Equatable {
        /// Read another block.
        case `continue`
        /// Stop and keep the recording.
        case stop(CaptureStopReason)
        /// Stop and keep nothing (Ctrl-C twice).
        case abort
    }

    /// The stream's sample rate.
    public let sampleRate: Int
    /// The longest recording, in seconds.
    public let maxSeconds: Double
    /// Seconds of silence after speech that end the recording; nil never stops on silence.
    public let stopAfterSilenceSeconds: Double?

    /// Samples kept so far.
    public private(set) var samples = 0
    /// Whether speech has begun (the meter says "recording" from then on, "listening…" before).
    public private(set) var speechHasBegun = false

    private let frameLength: Int
    private let maxSamples: Int
    private let speechFrames: Int
    private let silenceFrames: Int?
    private var frameSquares = 0.0
    private var frameFilled = 0
    private var loudRun = 0
    private var silentRun = 0

    /// A detector for a `sampleRate` stream.
    ///
    /// - Parameters:
    ///   - maxSeconds: must be positive.
    ///   - stopAfterSilenceSeconds: rounded up to whole frames (at least one).
    public init(sampleRate: Int = AudioCaptureDevice.sampleRate, maxSeconds: Double, stopAfterSilenceSeconds: Double?) {
        self.sampleRate = sampleRate
        self.maxSeconds = maxSeconds
        self.stopAfterSilenceSeconds = stopAfterSilenceSeconds
        frameLength = max(1, Int((Double(sampleRate) * Self.frameSeconds).rounded()))
        maxSamples = max(1, Int((maxSeconds * Double(sampleRate)).rounded()))
        speechFrames = Int((Self.speechMinimumSeconds / Self.frameSeconds).rounded())
        silenceFrames = stopAfterSilenceSeconds.map { max(1, Int(($0 / Self.frameSeconds - 1e-9).rounded(.up))) }
    }

    /// Seconds kept so far.
    public var elapsedSeconds: Double { Double(samples) / Double(sampleRate) }

    /// Takes the next block.
    ///
    /// - Returns: how many of its samples belong to the recording (fewer than the block when
    ///   it stops inside it) and what to do next.
    public mutating func add(_ block: UnsafeBufferPointer<Float>) -> (kept: Int, decision: Decision) {
        for (index, sample) in block.enumerated() {
            if samples == maxSamples { return (index, .stop(.maxDuration)) }
            samples += 1
            frameSquares += Double(sample) * Double(sample)
            frameFilled += 1
            if frameFilled == frameLength, closeFrame() { return (index + 1, .stop(.silence)) }
        }
        return (block.count, samples >= maxSamples ? .stop(.maxDuration) : .continue)
    }

    /// What Ctrl-C pressed `count` times means: nothing yet, stop and keep, or abort.
    public static func decision(forInterrupts count: Int) -> Decision? {
        switch count {
        case ...0: nil
        case 1: .stop(.interrupted)
        default: .abort
        }
    }

    /// Judges the frame just completed; true when it completes the silence that stops.
    private mutating func closeFrame() -> Bool {
        let level = 10 * log10(frameSquares / Double(frameFilled))
        frameSquares = 0
        frameFilled = 0
        loudRun = level >= Self.speechThresholdDBFS ? loudRun + 1 : 0
        if loudRun >= speechFrames { speechHasBegun = true }
        guard speechHasBegun, let silenceFrames else { return false }
        silentRun = level < Self.silenceThresholdDBFS ? silentRun + 1 : 0
        return silentRun >= silenceFrames
    }
}

#if canImport(Glibc)
import Glibc
#endif
