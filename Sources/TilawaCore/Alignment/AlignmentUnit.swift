/// One thing a student recites, in order, for the aligner: an ayah, or an isti'adha or a
/// basmala they may recite before a surah.
public struct AlignmentUnit: Sendable, Hashable {
    /// Its length in Arabic letters (marks not counted): what the aligner expects its
    /// duration in proportion to.
    public var letters: Int
    /// True for a unit the student may leave out (the isti'adha, a basmala before a surah).
    public var optional: Bool

    /// A unit of `letters` letters.
    public init(letters: Int, optional: Bool = false) {
        self.letters = letters
        self.optional = optional
    }
}
