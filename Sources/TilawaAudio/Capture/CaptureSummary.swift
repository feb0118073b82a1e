

/// What a finished recording holds.
public struct CaptureSummary: Sendable, Equatable {
    /// The WAV file.
    public var path: String
    /// The PCM it came from.
    public var device: String
    /// Its length in seconds.
    public var durationSeconds: Double
    /// What ended it.
    public var reason: CaptureStopReason
    /// Whether speech ever began (`CaptureStopDetector`'s thresholds).
    public var speechDetected: Bool
    /// Its sample peak in dBFS; nil when it was digital silence throughout.
    public var peakDBFS: Double?
    /// Blocks whose peak reached the clip threshold.
    public var clippedBlocks: Int
    /// Overruns recovered from (samples lost while reading fell behind).
    public var overruns: Int
}
