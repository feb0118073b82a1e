

/// The playback gain that brings a recording to the loudness target without passing the peak ceiling.
public enum PlaybackGain {
    /// Gain in dB for OpusHead's output gain (RFC 7845 §5.1): `target − loudness`, lowered
    /// so that `peak + gain ≤ ceiling`; 0 when the loudness is unknown (silence).
    public static func decibels(loudnessLUFS: Double?, peakDBFS: Double?, settings: OpusEncoderSettings) -> Double {
        guard let loudness = loudnessLUFS else { return 0 }
        var gain = settings.targetLoudnessLUFS - loudness
        if let peak = peakDBFS { gain = min(gain, settings.peakCeilingDBFS - peak) }
        return gain
    }

    /// The gain as the Q7.8 fixed-point value OpusHead stores, rounded down so the
    /// ceiling holds after rounding.
    public static func q78(_ decibels: Double) -> Int16 {
        Int16(clamping: Int((decibels * 256).rounded(.down)))
    }
}
