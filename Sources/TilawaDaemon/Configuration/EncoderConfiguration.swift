/// How recordings are encoded to Ogg Opus (`audio.bitrate` … `audio.peak_ceiling_dbfs`).
///
/// A plain value with the fields of `OpusEncoderSettings` (TilawaAudio), already checked
/// against libopus's limits at load time, so the mapping to it cannot fail.
public struct EncoderConfiguration: Sendable, Hashable {
    /// The values `signal` takes, matching `OpusEncoderSettings.Signal`'s raw values.
    public static let signals = ["voice", "music", "auto"]

    /// Target bitrate in bit/s (VBR), 6000…510000.
    public var bitrate: Int = 32_000
    /// Encoder complexity, 0…10.
    public var complexity: Int = 10
    /// `OPUS_SET_SIGNAL` hint: `voice`, `music` or `auto`.
    public var signal: String = "voice"
    /// Playback loudness target in LUFS (through the OpusHead output gain, RFC 7845 §5.1).
    public var targetLoudnessLUFS: Double = -19
    /// The output gain never lifts the sample peak above this level (dBFS).
    public var peakCeilingDBFS: Double = -1

    /// The defaults of DESIGN §2: 32 kbit/s, complexity 10, voice, −19 LUFS, −1 dBFS.
    public init() {}
}
