import Foundation

/// What the recording was before Tilawa decoded it.
public struct AudioSource: Sendable, Codable, Equatable {
    /// FFmpeg's short name of the container (`wav`, `mov,mp4,m4a,3gp,3g2,mj2`, `ogg`, …).
    public var container: String
    /// FFmpeg's short name of the codec (`pcm_s16le`, `aac`, `opus`, …).
    public var codec: String
    /// Sample rate of the source in Hz.
    public var sampleRate: Int
    /// Number of channels of the source.
    public var channels: Int

    /// Creates a source description.
    public init(container: String, codec: String, sampleRate: Int, channels: Int) {
        self.container = container
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
    }

    enum CodingKeys: String, CodingKey {
        case container, codec, channels
        case sampleRate = "sample_rate"
    }
}
