/// Why a list of ayah ranges (`ayahs:` in `program.yaml`) cannot be read.
public enum AyahRangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing but spaces.
    case empty
    /// A part that is not `surah:ayah` or `surah:first-last` (also an empty part between `;`).
    case malformed(part: String)
    /// A surah the text does not have (1…114).
    case unknownSurah(surah: Int, surahCount: Int)
    /// An ayah the surah does not have.
    case unknownAyah(surah: Int, ayah: Int, ayahCount: Int)
    /// A range whose last ayah comes before its first.
    case reversed(part: String)
    /// A range that lists an ayah an earlier range already has.
    case overlapping(range: String, earlier: String)

    /// Stable snake_case code: `malformed_ayahs`, `unknown_surah`, `unknown_ayah`, `reversed_range`, `overlapping_ranges`.
    public var code: String {
        switch self {
        case .empty, .malformed: "malformed_ayahs"
        case .unknownSurah: "unknown_surah"
        case .unknownAyah: "unknown_ayah"
        case .reversed: "reversed_range"
        case .overlapping: "overlapping_ranges"
        }
    }

    /// One sentence fragment for a person, naming the culprit.
    public var description: String {
        switch self {
        case .empty:
            "no ayahs are listed; write ranges such as \"1:1-7; 114:1-6\" or one ayah such as \"2:255\""
        case let .malformed(part):
            "\"\(part)\" is not an ayah range; write surah:first-last (\"1:1-7\") or surah:ayah (\"2:255\"), ranges separated by \";\""
        case let .unknownSurah(surah, count):
            "there is no surah \(surah); surahs are numbered 1 to \(count)"
        case let .unknownAyah(surah, ayah, count):
            "surah \(surah) has no ayah \(ayah); it has ayahs 1 to \(count)"
        case let .reversed(part):
            "\"\(part)\" ends before it starts; write the first ayah, then the last"
        case let .overlapping(range, earlier):
            "\(range) repeats ayahs already listed in \(earlier)"
        }
    }
}
