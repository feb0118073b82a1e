extension AyahRange {
    /// Reads a list of ranges, `1:1-7; 114:1-6; 113:1-5` or `2:255`, and checks each against `quran`.
    ///
    /// Ranges are separated by `;`; spaces around any part are allowed. A surah and an ayah
    /// are ASCII digits; a range stays inside one surah. An ayah may appear in one range only.
    /// - Throws: `AyahRangeError`: `malformed` (syntax, an empty list or part), `unknownSurah`,
    ///   `unknownAyah`, `reversed` (`1:7-1`), `overlapping` (an ayah listed twice).
    public static func parseList(_ text: String, in quran: QuranText) throws(AyahRangeError) -> [AyahRange] {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false).map(Self.trimmed)
        guard !(parts.count == 1 && parts[0].isEmpty) else { throw .empty }
        var ranges = [AyahRange]()
        for part in parts {
            let range = try parse(part, in: quran)
            if let earlier = ranges.first(where: { $0.surah == range.surah && $0.first <= range.last && range.first <= $0.last }) {
                throw .overlapping(range: range.description, earlier: earlier.description)
            }
            ranges.append(range)
        }
        return ranges
    }

    /// One `surah:first-last` or `surah:ayah`, checked against `quran`.
    static func parse(_ part: Substring, in quran: QuranText) throws(AyahRangeError) -> AyahRange {
        let written = String(part)
        let halves = part.split(separator: ":", omittingEmptySubsequences: false).map(Self.trimmed)
        guard halves.count == 2 else { throw .malformed(part: written) }
        let ends = halves[1].split(separator: "-", omittingEmptySubsequences: false).map(Self.trimmed)
        guard (1...2).contains(ends.count), let surah = number(halves[0]), let first = number(ends[0]),
              let last = ends.count == 2 ? number(ends[1]) : first
        else { throw .malformed(part: written) }
        guard let count = quran.ayahCount(surah: surah) else {
            throw .unknownSurah(surah: surah, surahCount: quran.indexedSurahCount)
        }
        guard first <= last else { throw .reversed(part: written) }
        for ayah in [first, last] where ayah < 1 || ayah > count {
            throw .unknownAyah(surah: surah, ayah: ayah, ayahCount: count)
        }
        return AyahRange(surah: surah, first: first, last: last)
    }

    /// One to three ASCII digits as a number; nil otherwise (no signs, no Arabic-Indic digits).
    private static func number(_ text: Substring) -> Int? {
        guard (1...3).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let spaces: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = text.firstIndex(where: { !spaces($0) }), let end = text.lastIndex(where: { !spaces($0) }) else {
            return text[text.endIndex...]
        }
        return text[start...end]
    }
}

extension Array where Element == AyahRange {
    /// The ranges as `parseList` reads them, `1:1-7; 114:1-6`: how they are stored.
    public var listDescription: String {
        map(\.description).joined(separator: "; ")
    }
}
