/// Why a recording was not aligned to its ayahs: no entry gets times, and the submission
/// says this instead (`ayahs_unavailable_reason`).
public enum AlignmentRefusal: String, Sendable, Hashable, Codable, CaseIterable, Error {
    /// The passage has no ayahs to align.
    case noAyahs = "no_ayahs"
    /// The detector found no speech.
    case noSpeech = "no_speech"
    /// Fewer pauses than the passage has ayah boundaries.
    case tooFewPauses = "too_few_pauses"
    /// The speech is far too long or too short for the passage's letters at any plausible pace.
    case durationMismatch = "duration_mismatch"
    /// The best placement of the boundaries still fits the ayahs' lengths poorly (another
    /// passage, a recitation that repeats or skips).
    case poorFit = "poor_fit"
    /// The pauses fit, but the sound does not fit the passage's letters better than random
    /// Quran text of the same lengths (`RecitationCheck`): most likely another passage.
    case soundMismatch = "sound_mismatch"

    /// Its stable code.
    public var code: String { rawValue }
}
