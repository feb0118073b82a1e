import TilawaCore

/// Computes every figure of `AudioAnalysis` in one pass over mono blocks.
///
/// Not the waveform peaks: only the pass that encodes a recording keeps them
/// (`AudioProcessor.encode`), so the pass that judges it does not compute them.
///
/// Feed it the decoder's blocks with `add(_:)`, then call `finish()`. Not `Sendable`: one
/// analysis belongs to one decode.
public final class AudioAnalyzer {
    private let sampleRate: Int
    private let loudness: LoudnessMeter
    private var signal = SignalMeter()
    private var speech: SpeechActivityDetector

    /// Prepares an analysis of a `sampleRate` stream.
    public init(sampleRate: Int = Int(AudioDecoder.outputSampleRate)) {
        self.sampleRate = sampleRate
        loudness = LoudnessMeter(sampleRate: sampleRate)
        speech = SpeechActivityDetector(sampleRate: sampleRate)
    }

    /// Adds the next block of samples.
    public func add(_ block: UnsafeBufferPointer<Float>) {
        loudness.add(block)
        signal.add(block)
        speech.add(block)
    }

    /// The stretches of speech `finish()` found (empty before it): the frame-level result of
    /// the speech detector, a few floats a second, kept for the ayah aligner.
    public private(set) var speechSegments: [SpeechSegment] = []

    /// Samples seen so far.
    public var samples: Int { signal.samples }

    /// The analysis of everything added.
    public func finish() -> AudioAnalysis {
        let duration = Double(signal.samples) / Double(sampleRate)
        let activity = speech.finish(durationSeconds: duration)
        speechSegments = activity.segments
        let analysis = AudioAnalysis(
            durationSeconds: duration,
            speechSeconds: activity.speechSeconds,
            speechRatio: duration > 0 ? activity.speechSeconds / duration : 0,
            loudnessLUFS: loudness.integratedLUFS,
            peakDBFS: signal.peakDBFS,
            clippedRatio: signal.clippedRatio,
            leadingSilenceSeconds: activity.leadingSilenceSeconds,
            trailingSilenceSeconds: activity.trailingSilenceSeconds
        )
        return analysis
    }
}
