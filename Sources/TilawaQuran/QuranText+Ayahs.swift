extension QuranText {
    /// Every ayah of `ranges`, range by range, in order; an ayah the text lacks is left out
    /// (ranges read by `AyahRange.parseList` have none).
    public func ayahs(in ranges: [AyahRange]) -> [QuranAyah] {
        ranges.flatMap { range in
            range.ayahs.compactMap { number in
                ayah(surah: range.surah, ayah: number).map { QuranAyah(surah: range.surah, ayah: number, text: $0) }
            }
        }
    }

    /// The ayahs of a stored list (`1:1-7; 114:1-6`); empty when `list` is nil, empty, or no
    /// longer reads (a database written by hand): a passage without text, never a failed request.
    public func ayahs(inList list: String?) -> [QuranAyah] {
        guard let list, let ranges = try? AyahRange.parseList(list, in: self) else { return [] }
        return ayahs(in: ranges)
    }
}
