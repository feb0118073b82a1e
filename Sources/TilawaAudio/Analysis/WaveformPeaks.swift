import Foundation

/// Min/max peaks per pixel in BBC audiowaveform's JSON format (version 2, 8-bit, one channel).
///
/// Values are the 16-bit sample scaled to 8 bits the way audiowaveform does it
/// (`sample >> 8`), so the file matches what `audiowaveform -b 8` would draw.
public struct WaveformPeaks: Sendable, Equatable, Codable {
    /// Format version; always 2.
    public var version = 2
    /// Channels; always 1 (Tilawa's signal is mono).
    public var channels = 1
    /// Sample rate the peaks were taken at.
    public var sampleRate: Int
    /// Samples summarised by one pixel (one min/max pair).
    public var samplesPerPixel: Int
    /// Bits per value; always 8.
    public var bits = 8
    /// Number of pixels; `data` holds twice as many values.
    public var length: Int
    /// Interleaved min, max per pixel, each in −128…127.
    public var data: [Int8]

    enum CodingKeys: String, CodingKey {
        case version, channels, bits, length, data
        case sampleRate = "sample_rate"
        case samplesPerPixel = "samples_per_pixel"
    }

    /// The JSON document a player loads.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
