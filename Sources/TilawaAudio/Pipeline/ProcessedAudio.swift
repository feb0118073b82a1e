import Foundation
import TilawaCore

/// What one pass over a recording produced.
public struct ProcessedAudio: Sendable {
    /// The file as it arrived.
    public var source: AudioSource
    /// The figures measured on its mono 48 kHz signal.
    public var analysis: AudioAnalysis
    /// Accepted or rejected under the processor's limits.
    public var verdict: AudioVerdict
    /// The Ogg Opus file, when one was kept.
    public var encoded: EncodedAudio?
    /// Where the speech detector found speech: kept with an accepted submission so its
    /// encode job can place the ayahs without running the detector again.
    public var speechSegments: [SpeechSegment] = []
    /// The recording's spectral shape, when the pass was asked for it.
    public var soundFrames: SoundFrames? = nil
}
