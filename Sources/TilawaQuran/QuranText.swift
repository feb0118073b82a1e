/// Tanzil's Quran text indexed surah → ayah → text (Tanzil Project, tanzil.net, CC BY 3.0).
///
/// `QuranText.uthmani` is the Uthmani file the binary embeds at build time
/// (`data/quran/quran-uthmani.txt`, see `data/quran/README.md`), parsed on first use and kept
/// for the life of the process. The text of every ayah is exactly what the file holds:
/// Tanzil puts the basmala at the start of ayah 1 of every surah but 1 (where it is ayah 1)
/// and 9 (which has none), and `ayah(surah:ayah:)` keeps it there. `displayText(surah:ayah:)`
/// splits it off for a reader or an aligner; the file and the served text are never changed.
public struct QuranText: Sendable {
    /// The embedded Uthmani text, parsed once, on first use (a `static let` is initialised
    /// lazily and exactly once, safely across threads).
    public static let uthmani = QuranText(parsing: TanzilUthmaniFile.text)

    /// Surahs in the Quran; `surahs` has one entry per surah when the text is whole.
    public static let surahCount = 114

    /// Ayah texts by surah: `surahs[s - 1][a - 1]` is surah s, ayah a. Slices of the source
    /// text, so the index costs no second copy of it.
    private let surahs: [[Substring]]

    /// Tanzil's copyright block (from `# PLEASE DO NOT REMOVE…` to the end), to show where the text is credited.
    public let copyrightNotice: String

    /// Indexes a Tanzil text file (`sura|aya|text` lines, then `#` comment lines).
    ///
    /// Lines that are not `sura|aya|text` with numbers in order are skipped rather than
    /// trusted: an ayah whose surah or number is out of sequence is left out, so a damaged
    /// file shows up as missing ayahs (the tests count all 6,236) instead of a crash.
    public init(parsing text: String) {
        var surahs = [[Substring]]()
        var notice = Substring()
        var lines = text[...]
        while !lines.isEmpty {
            let end = lines.firstIndex(of: "\n") ?? lines.endIndex
            let line = lines[..<end]
            lines = end == lines.endIndex ? lines[end...] : lines[lines.index(after: end)...]
            if line.hasPrefix("#") {
                if notice.isEmpty { notice = text[line.startIndex...] }
                continue
            }
            let fields = line.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let surah = Int(fields[0]), let ayah = Int(fields[1]), !fields[2].isEmpty else { continue }
            if surah == surahs.count + 1, ayah == 1 {
                surahs.append([fields[2]])
            } else if surah == surahs.count, ayah == surahs[surah - 1].count + 1 {
                surahs[surah - 1].append(fields[2])
            }
        }
        self.surahs = surahs
        self.copyrightNotice = String(notice)
    }

    /// The number of ayahs in the whole text (6,236 in Tanzil's numbering).
    public var ayahCount: Int {
        surahs.reduce(0) { $0 + $1.count }
    }

    /// The number of surahs the text holds (114 when it is whole).
    public var indexedSurahCount: Int {
        surahs.count
    }

    /// The number of ayahs in `surah`; nil for a surah the text does not have.
    public func ayahCount(surah: Int) -> Int? {
        guard surahs.indices.contains(surah - 1) else { return nil }
        return surahs[surah - 1].count
    }

    /// The text of `surah`:`ayah` exactly as the file has it (basmala included on ayah 1 of
    /// surahs other than 1 and 9); nil when there is no such ayah.
    public func ayah(surah: Int, ayah: Int) -> String? {
        guard surahs.indices.contains(surah - 1), surahs[surah - 1].indices.contains(ayah - 1) else { return nil }
        return String(surahs[surah - 1][ayah - 1])
    }
}
