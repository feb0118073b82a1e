extension QuranText {
    /// `surah`:`ayah` with the basmala split off when Tanzil prefixed it (ayah 1 of surahs
    /// other than 1 and 9); nil when there is no such ayah.
    ///
    /// The basmala is the ayah's first four words when their letters are those of 1:1, the
    /// basmala (compared without marks: 95:1 and 97:1 add a shadda); Al-Fatiha's ayah 1 is the basmala itself and stays whole, and a basmala
    /// inside an ayah (27:30) is part of the ayah.
    public func displayText(surah: Int, ayah: Int) -> AyahDisplayText? {
        guard let whole = self.ayah(surah: surah, ayah: ayah) else { return nil }
        guard ayah == 1, surah != 1, surah != 9 else { return AyahDisplayText(basmala: nil, text: whole) }
        let basmala = (self.ayah(surah: 1, ayah: 1) ?? "").split(separator: " ").map(Self.letters(of:))
        let words = whole.split(separator: " ", maxSplits: basmala.count, omittingEmptySubsequences: false)
        guard basmala.count == 4, words.count == 5, zip(words, basmala).allSatisfy({ Self.letters(of: $0) == $1 }) else {
            return AyahDisplayText(basmala: nil, text: whole)
        }
        return AyahDisplayText(basmala: words[0..<4].joined(separator: " "), text: String(words[4]))
    }

    /// The word without its Arabic marks (harakat, shadda, sukun, small letters, superscript alef).
    private static func letters(of word: Substring) -> String {
        String(String.UnicodeScalarView(word.unicodeScalars.filter { $0.properties.generalCategory != .nonspacingMark }))
    }
}
