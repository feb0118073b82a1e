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

    /// How one unit (or two ayahs run together) fitted the speech given to it in the best
    /// placement tried: what a person reads to see why a recording was placed or refused.
    public struct UnitFit: Sendable, Hashable {
        /// How the unit was placed.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// One block of speech, perhaps with pauses inside.
            case one
            /// A short first attempt, a pause, then the whole unit.
            case restarted
            /// Two ayahs in one block; `unit` is the first.
            case runTogether = "run_together"
        }

        /// Its index in the units given to the aligner (the first of two run together).
        public var unit: Int
        public var kind: Kind
        /// Where its speech starts and ends, in seconds.
        public var start: Double
        public var end: Double
        /// Its seconds of speech (pauses not counted; a restart's first attempt not counted).
        public var seconds: Double
        /// The seconds its letters were due at the placement's pace.
        public var expectedSeconds: Double
        /// The z-score of the log ratio of the two (0 is a perfect fit).
        public var zScore: Double
        /// Pauses inside it.
        public var insidePauses: Int

        /// A unit's fit.
        public init(unit: Int, kind: Kind, start: Double, end: Double, seconds: Double, expectedSeconds: Double,
                    zScore: Double, insidePauses: Int) {
            self.unit = unit
            self.kind = kind
            self.start = start
            self.end = end
            self.seconds = seconds
            self.expectedSeconds = expectedSeconds
            self.zScore = zScore
            self.insidePauses = insidePauses
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
    /// The best placement tried, unit by unit in order, kept when it was refused too (what
    /// `tilawa align --json` shows); empty when no placement was tried.
    public var fit: [UnitFit]
    /// How much better the sound fits the placed units' letters than random text
    /// (`RecitationCheck`'s z-score); nil when the check did not run. Kept for calibration.
    public var soundScore: Double?

    /// An alignment from its parts.
    public init(placements: [Placement], notFound: [Int] = [], refusal: AlignmentRefusal? = nil, misfit: Double? = nil,
                fit: [UnitFit] = []) {
        self.placements = placements
        self.notFound = notFound
        self.refusal = refusal
        self.misfit = misfit
        self.fit = fit
    }

    /// A refusal with no placements.
    public static func refused(_ refusal: AlignmentRefusal, misfit: Double? = nil, fit: [UnitFit] = []) -> AyahAlignment {
        AyahAlignment(placements: [], refusal: refusal, misfit: misfit, fit: fit)
    }
}
