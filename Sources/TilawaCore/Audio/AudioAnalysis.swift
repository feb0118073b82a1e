import Foundation

/// The figures one analysis pass measures on a recording's mono 48 kHz signal.
///
/// Levels are `nil` where they do not exist: the integrated loudness of a recording with
/// nothing above BS.1770's absolute gate (−70 LUFS), the peak of digital silence.
public struct AudioAnalysis: Sendable, Codable, Equatable {
    /// Length of the decoded audio in seconds (from the decoded sample count, not the header).
    public var durationSeconds: Double
    /// Seconds classified as speech by the speech-activity detector.
    public var speechSeconds: Double
    /// `speechSeconds / durationSeconds`, 0 for an empty recording.
    public var speechRatio: Double
    /// Integrated loudness (ITU-R BS.1770-4 / EBU R128) in LUFS, or `nil` below the absolute gate.
    public var loudnessLUFS: Double?
    /// Highest absolute sample value in dBFS, or `nil` for digital silence.
    public var peakDBFS: Double?
    /// Share of samples at or above the clipping level (|x| ≥ 0.999).
    public var clippedRatio: Double
    /// Seconds before the first speech; the whole duration when there is no speech.
    public var leadingSilenceSeconds: Double
    /// Seconds after the last speech; the whole duration when there is no speech.
    public var trailingSilenceSeconds: Double

    /// Creates an analysis from its figures.
    public init(
        durationSeconds: Double, speechSeconds: Double, speechRatio: Double,
        loudnessLUFS: Double?, peakDBFS: Double?, clippedRatio: Double,
        leadingSilenceSeconds: Double, trailingSilenceSeconds: Double
    ) {
        self.durationSeconds = durationSeconds
        self.speechSeconds = speechSeconds
        self.speechRatio = speechRatio
        self.loudnessLUFS = loudnessLUFS
        self.peakDBFS = peakDBFS
        self.clippedRatio = clippedRatio
        self.leadingSilenceSeconds = leadingSilenceSeconds
        self.trailingSilenceSeconds = trailingSilenceSeconds
    }

    enum CodingKeys: String, CodingKey {
        case durationSeconds = "duration_seconds"
        case speechSeconds = "speech_seconds"
        case speechRatio = "speech_ratio"
        case loudnessLUFS = "loudness_lufs"
        case peakDBFS = "peak_dbfs"
        case clippedRatio = "clipped_ratio"
        case leadingSilenceSeconds = "leading_silence_seconds"
        case trailingSilenceSeconds = "trailing_silence_seconds"
    }

    // Encode `nil` levels as JSON null rather than leaving the member out: clients read a
    // fixed shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(durationSeconds, forKey: .durationSeconds)
        try container.encode(speechSeconds, forKey: .speechSeconds)
        try container.encode(speechRatio, forKey: .speechRatio)
        try container.encode(loudnessLUFS, forKey: .loudnessLUFS)
        try container.encode(peakDBFS, forKey: .peakDBFS)
        try container.encode(clippedRatio, forKey: .clippedRatio)
        try container.encode(leadingSilenceSeconds, forKey: .leadingSilenceSeconds)
        try container.encode(trailingSilenceSeconds, forKey: .trailingSilenceSeconds)
    }
}
