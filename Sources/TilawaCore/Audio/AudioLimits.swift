import Foundation

/// The limits a recording must meet, and the thresholds for warnings.
///
/// Defaults are the programme's for student recordings; `coachReply` is the looser set
/// used for coach feedback (2 s to 30 min, not silent).
public struct AudioLimits: Sendable, Codable, Equatable {
    /// Shortest accepted duration in seconds.
    public var minDurationSeconds: Double = 10
    /// Longest accepted duration in seconds. Decoding stops shortly past it.
    public var maxDurationSeconds: Double = 15 * 60
    /// Fewest seconds of speech.
    public var minSpeechSeconds: Double = 5
    /// Smallest share of the recording that must be speech.
    public var minSpeechRatio: Double = 0.2
    /// Quietest accepted integrated loudness in LUFS.
    public var minLoudnessLUFS: Double = -50
    /// Share of clipped samples from which `clipping` is reported.
    public var clippingWarningRatio: Double = 0.001
    /// Leading silence, in seconds, beyond which `long_leading_silence` is reported.
    public var leadingSilenceWarningSeconds: Double = 5
    /// Trailing silence, in seconds, beyond which `long_trailing_silence` is reported.
    public var trailingSilenceWarningSeconds: Double = 5

    /// The defaults for student recordings.
    public init() {}

    /// Limits for a coach's audio reply: 2 s to 30 min, some speech, no ratio requirement.
    public static let coachReply: AudioLimits = {
        var limits = AudioLimits()
        limits.minDurationSeconds = 2
        limits.maxDurationSeconds = 30 * 60
        limits.minSpeechSeconds = 1
        limits.minSpeechRatio = 0
        return limits
    }()

    /// Limits for a voice question or answer in a reply's thread: 1 s to 3 min, some speech.
    public static let commentClip: AudioLimits = {
        var limits = AudioLimits()
        limits.minDurationSeconds = 1
        limits.maxDurationSeconds = 3 * 60
        limits.minSpeechSeconds = 0.5
        limits.minSpeechRatio = 0
        return limits
    }()

    /// Limits for a coach's spoken correction on an annotation: 1 to 30 s, some speech.
    public static let annotationClip: AudioLimits = {
        var limits = commentClip
        limits.maxDurationSeconds = 30
        return limits
    }()

    /// Judges an analysis: every rejection that applies, in the contract's order, and the warnings.
    public func verdict(for analysis: AudioAnalysis) -> AudioVerdict {
        var rejections: [AudioRejection] = []
        if analysis.durationSeconds < minDurationSeconds {
            rejections.append(.tooShort(seconds: analysis.durationSeconds, minimum: minDurationSeconds))
        }
        if analysis.durationSeconds > maxDurationSeconds {
            rejections.append(.tooLong(seconds: analysis.durationSeconds, maximum: maxDurationSeconds))
        }
        if analysis.speechSeconds < minSpeechSeconds || analysis.speechRatio < minSpeechRatio {
            rejections.append(.silent(speechSeconds: analysis.speechSeconds, minimumSeconds: minSpeechSeconds))
        }
        if let loudness = analysis.loudnessLUFS, loudness >= minLoudnessLUFS {
            // loud enough
        } else {
            rejections.append(.tooQuiet(loudnessLUFS: analysis.loudnessLUFS, minimum: minLoudnessLUFS))
        }
        var warnings: [AudioWarning] = []
        if analysis.clippedRatio >= clippingWarningRatio { warnings.append(.clipping) }
        let hasSpeech = analysis.speechSeconds > 0
        if hasSpeech && analysis.leadingSilenceSeconds > leadingSilenceWarningSeconds {
            warnings.append(.longLeadingSilence)
        }
        if hasSpeech && analysis.trailingSilenceSeconds > trailingSilenceWarningSeconds {
            warnings.append(.longTrailingSilence)
        }
        return AudioVerdict(rejections: rejections, warnings: warnings)
    }

    enum CodingKeys: String, CodingKey {
        case minDurationSeconds = "min_duration_seconds"
        case maxDurationSeconds = "max_duration_seconds"
        case minSpeechSeconds = "min_speech_seconds"
        case minSpeechRatio = "min_speech_ratio"
        case minLoudnessLUFS = "min_loudness_lufs"
        case clippingWarningRatio = "clipping_warning_ratio"
        case leadingSilenceWarningSeconds = "leading_silence_warning_seconds"
        case trailingSilenceWarningSeconds = "trailing_silence_warning_seconds"
    }
}
