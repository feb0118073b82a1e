/// How recordings are encoded to Ogg Opus, and the loudness they are normalised to for playback.
public struct OpusEncoderSettings: Sendable, Equatable, Codable {
    /// Opus `OPUS_SET_SIGNAL` hint.
    public enum Signal: String, Sendable, Codable, CaseIterable {
        case auto, voice, music

        var ctlValue: Int32 {
            switch self {
            case .auto: 0
            case .voice: 1
            case .music: 2
            }
        }
    }

    /// Target bitrate in bit/s (VBR).
    public var bitrate: Int = 32_000
    /// Encoder complexity 0…10.
    public var complexity: Int = 10
    /// Signal type hint; voice suits recitation and lets lower complexities keep their size.
    public var signal: Signal = .voice
    /// Playback loudness target in LUFS: −19 LUFS is the mono equivalent of the −16 LUFS
    /// spoken-word norm.
    public var targetLoudnessLUFS: Double = -19
    /// The output gain never lifts the sample peak above this level (dBFS).
    public var peakCeilingDBFS: Double = -1

    /// The defaults of DESIGN §2: 32 kbit/s VBR, complexity 10, voice, −19 LUFS, −1 dBFS.
    public init() {}

    /// Checks the values are ones libopus accepts.
    public func validated() throws(OpusEncoderError) -> Self {
        guard (6_000...510_000).contains(bitrate) else { throw .invalidSetting("bitrate must be 6000…510000 bit/s, got \(bitrate)") }
        guard (0...10).contains(complexity) else { throw .invalidSetting("complexity must be 0…10, got \(complexity)") }
        guard targetLoudnessLUFS.isFinite, (-70.0...0).contains(targetLoudnessLUFS) else {
            throw .invalidSetting("target loudness must be −70…0 LUFS")
        }
        return self
    }

    enum CodingKeys: String, CodingKey {
        case bitrate, complexity, signal
        case targetLoudnessLUFS = "target_loudness_lufs"
        case peakCeilingDBFS = "peak_ceiling_dbfs"
    }
}
