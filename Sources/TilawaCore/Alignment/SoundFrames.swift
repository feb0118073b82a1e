/// A recording's coarse spectral shape, one row of `dimensions` numbers every 20 ms (the
/// speech detector's frames): the log energy of seven bands relative to the frame's loudness,
/// then its loudness (natural logs of power). What `RecitationCheck` hears a passage's letters
/// in; a 15-minute recording is 45,000 rows, 1.4 MB, kept only while its encode job runs.
public struct SoundFrames: Sendable, Hashable {
    /// Seconds a row stands for, from the recording's start (row `i` starts at `i × frameSeconds`).
    public static let frameSeconds = 0.02
    /// Numbers a row.
    public static let dimensions = 8
    /// The band edges in hertz: 100–300, 300–600, 600–1000, 1000–2000, 2000–3500, 3500–6000 and
    /// 6000–11025 Hz (the loudness is the energy of 100–11025 Hz).
    public static let bandEdges: [Double] = [100, 300, 600, 1000, 2000, 3500, 6000, 11025]

    /// The rows, one after another.
    public var values: [Float]

    /// Frames from their rows laid end to end (`values.count` a multiple of `dimensions`).
    public init(values: [Float]) {
        self.values = values
    }

    /// How many rows there are.
    public var count: Int { values.count / Self.dimensions }
}
