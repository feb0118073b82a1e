import Foundation
import TilawaCore

/// An Ogg Opus file written by `AudioProcessor`.
public struct EncodedAudio: Sendable, Equatable {
    /// Where it is.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int
    /// The OpusHead output gain applied at playback, in dB.
    public var outputGainDB: Double
    /// The duration encoded, in seconds.
    public var durationSeconds: Double

    /// Average bitrate of the whole file, container included, in bit/s.
    public var bitrate: Double { durationSeconds > 0 ? Double(bytes) * 8 / durationSeconds : 0 }
}
