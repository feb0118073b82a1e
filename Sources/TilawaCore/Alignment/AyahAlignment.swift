/// Where each unit of a passage was recited in a recording, or why that is not known.
public struct AyahAlignment: Sendable, Hashable {
    /// One unit placed in the recording.
    public struct Placement: Sendable, Hashable {
        /// Its index in the units given to the aligner.
        public var unit: Int
        /// Where its speech starts, in seconds.
        public var start: Double
        /// Where its speech ends, in seconds.
        public var end: Double

        /// A placement of unit `unit`.
        public init(unit: Int, start: Double, end: Double) {
            self.unit = unit
            self.start = start
            self.end = end
        }
    }

    /// The units found, in order; an optional unit not recited has none. Empty when refused.
    public var placements: [Placement]
    /// The units recited without a time of their own (an ayah run into the one before it,
    /// whose placement covers both), in order; empty when refused.
    public var notFound: [Int]
    /// Set when no unit gets times.
    public var refusal: AlignmentRefusal?
    /// How badly the best placement fits the units' lengths: the mean squared z-score of the
    /// log ratio of each unit's speech duration to its expected one (0 is perfect); nil when
    /// no placement was tried. Kept for calibration (`make bench-align`).
    public var misfit: Double?

    /// An alignment from its parts.
    public init(placements: [Placement], notFound: [Int] = [], refusal: AlignmentRefusal? = nil, misfit: Double? = nil) {
        self.placements = placements
        self.notFound = notFound
        self.refusal = refusal
        self.misfit = misfit
    }

    /// A refusal with no placements.
    public static func refused(_ refusal: AlignmentRefusal, misfit: Double? = nil) -> AyahAlignment {
        AyahAlignment(placements: [], refusal: refusal, misfit: misfit)
    }
}
