/// One stretch of speech the speech-activity detector found in a recording, in seconds from its start.
///
/// The detector bridges gaps up to 300 ms and drops bursts under 100 ms, so consecutive
/// segments are separated by pauses of more than 300 ms and a recording holds at most a
/// few of them a second.
public struct SpeechSegment: Sendable, Hashable, Codable {
    /// Where the speech starts.
    public var start: Double
    /// Where it ends (after `start`).
    public var end: Double

    /// A segment from `start` to `end` seconds.
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    /// Its length in seconds.
    public var duration: Double { end - start }

    // Stored compactly, `[start, end]`: a 15-minute recording has a few hundred of them.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        start = try container.decode(Double.self)
        end = try container.decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        // Centiseconds are finer than the detector's 20 ms frames need.
        try container.encode((start * 100).rounded() / 100)
        try container.encode((end * 100).rounded() / 100)
    }
}
