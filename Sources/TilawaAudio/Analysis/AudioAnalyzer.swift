import TilawaCore

/// Computes every figure of `AudioAnalysis` and the waveform peaks in one pass over mono blocks.
///
/// Feed it the decoder's blocks with `add(_:)`, then call `finish()`. Not `Sendable`: one
/// analysis belongs to one decode.
public final class AudioAnalyzer {
    private let sampleRate: Int
    private let loudness: LoudnessMeter
    private var signal = SignalMeter()
    private var speech: SpeechActivityDetector
    private var waveform: WaveformBuilder

    /// Prepares an analysis of a `sampleRate` stream with peaks every `samplesPerPixel` samples.
    public init(sampleRate: Int = Int(AudioDecoder.outputSampleRate), samplesPerPixel: Int = 960) {
        self.sampleRate = sampleRate
        loudness = LoudnessMeter(sampleRate: sampleRate)
        speech = SpeechActivityDetector(sampleRate: sampleRate)
        waveform = WaveformBuilder(sampleRate: sampleRate, samplesPerPixel: samplesPerPixel)
    }

    /// Adds the next block of samples.
    public func add(_ block: UnsafeBufferPointer<Float>) {
        loudness.add(block)
        signal.add(block)
        speech.add(block)
        waveform.add(block)
    }

    /// Samples seen so far.
    public var samples: Int { signal.samples }

    /// The analysis of everything added, and the peaks for the player.
    public func finish() -> (analysis: AudioAnalysis, waveform: WaveformPeaks) {
        let duration = Double(signal.samples) / Double(sampleRate)
        let activity = speech.finish(durationSeconds: duration)
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
        return (analysis, waveform.finish())
    }
}
