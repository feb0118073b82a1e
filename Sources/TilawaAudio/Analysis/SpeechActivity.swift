import Foundation
import TilawaCore

/// Where speech was found.
struct SpeechActivity: Equatable {
    var speechSeconds: Double
    var leadingSilenceSeconds: Double
    var trailingSilenceSeconds: Double
    /// The stretches of speech, in order: at most one per 400 ms (gaps under 300 ms are
    /// bridged, bursts under 100 ms dropped), what the ayah aligner needs of the recording.
    var segments: [SpeechSegment] = []
}
