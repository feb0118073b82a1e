extension QuranText {
    /// The number of Arabic letters in `text`: its letters (Unicode category Lo), without the
    /// harakat, shadda, sukun, small high letters, superscript alef and Tanzil's pause marks
    /// (all Mn), nor the tatweel (Lm) or spaces.
    public static func letterCount(of text: some StringProtocol) -> Int {
        text.unicodeScalars.lazy.filter { $0.properties.generalCategory == .otherLetter }.count
    }

    /// How long `text` is when recited, in letters: `letterCount(of:)`, except for the
    /// disjoined letters that open some surahs (الٓمٓ, يسٓ, كٓهيعٓصٓ — written with maddah
    /// marks and no harakat), which are recited by their names, most with a six-count madd:
    /// الٓمٓ is "alif lām mīm". What the ayah aligner weighs ayahs by.
    public static func recitedLetterCount(of text: some StringProtocol) -> Int {
        let scalars = text.unicodeScalars
        let isDisjoined = scalars.contains("\u{0653}") && !scalars.contains { (0x064B...0x0652).contains($0.value) }
        guard isDisjoined else { return letterCount(of: text) }
        return scalars.filter { $0.properties.generalCategory == .otherLetter }.reduce(0) { $0 + (disjoinedWeights[$1] ?? 3) }
    }

    /// A disjoined letter's name in letters, plus 3 for the madd lāzim of those whose name
    /// ends in a consonant after a long vowel (lām, mīm, ṣād, kāf, ʿayn, sīn, qāf, nūn).
    private static let disjoinedWeights: [Unicode.Scalar: Int] = [
        "ا": 3, "ر": 2, "ه": 2, "ي": 2, "ط": 2, "ح": 2,
        "ل": 6, "م": 6, "ص": 6, "ك": 6, "ع": 6, "س": 6, "ق": 6, "ن": 6,
    ]
}

extension QuranText {
    /// How many letter symbols `letterSymbols(of:)` gives: the 36 letters ء…ي.
    public static let letterSymbolCount = Set(letterSymbols.values).count

    private static let letterSymbols: [Unicode.Scalar: UInt8] = {
        // ء…ي without the tatweel and the five unassigned code points in between.
        let letters = (0x0621...0x064A).filter { !(0x063B...0x0640).contains($0) }.compactMap(Unicode.Scalar.init)
        var symbols = Dictionary(uniqueKeysWithValues: letters.enumerated().map { ($1, UInt8($0)) })
        // The long vowels the Uthmani script writes small: the superscript alef, the small waw and yeh.
        symbols["\u{0670}"] = symbols["\u{0627}"]
        symbols["\u{06E5}"] = symbols["\u{0648}"]
        symbols["\u{06E6}"] = symbols["\u{064A}"]
        return symbols
    }()

    /// The letters of Uthmani `text` as they sound in a continuous recitation, as symbols
    /// `0..<letterSymbolCount`, for `RecitationCheck` (what a recording's sound is matched
    /// against). The script shows what is not said, and this follows it:
    /// - the alef wasla (ٱ) is silent, and so is the lam after it that bears no mark (before a
    ///   "sun" letter, which bears the shadda: ٱلرَّحْمَـٰنِ is ar-raḥmān);
    /// - a letter under the small high zeros (۟, ۠) is not said (the alef of ءَامَنُوا۟);
    /// - the long vowels written small (the superscript alef of ٱلرَّحْمَـٰنِ, the small waw and yeh)
    ///   are said as the letters they stand for.
    /// Marks, spaces and anything else are left out.
    public static func letterSymbols(of text: some StringProtocol) -> [UInt8] {
        let scalars = Array(text.unicodeScalars)
        var symbols: [UInt8] = []
        symbols.reserveCapacity(scalars.count / 2)
        for (index, scalar) in scalars.enumerated() {
            guard let symbol = letterSymbols[scalar] else { continue }
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if next == "\u{06DF}" || next == "\u{06E0}" { continue }
            if scalar == "\u{0644}", index > 0, scalars[index - 1] == "\u{0671}",
               let next, letterSymbols[next] != nil, next != "\u{0670}" { continue }
            symbols.append(symbol)
        }
        return symbols
    }

    /// Every ayah's letters, in the mushaf's order, and where each ayah ends in them: the text
    /// random stretches are drawn from to see how well a recording fits letters it does not say.
    public var letterCorpus: (letters: [UInt8], ayahEnds: [Int]) {
        var corpus: [UInt8] = []
        var ends: [Int] = []
        for surah in 1...Self.surahCount {
            for index in 0..<(ayahCount(surah: surah) ?? 0) {
                corpus += Self.letterSymbols(of: self.ayah(surah: surah, ayah: index + 1) ?? "")
                ends.append(corpus.count)
            }
        }
        return (corpus, ends)
    }

    /// `letterCorpus` of the embedded text, made once on first use.
    public static let uthmaniLetterCorpus = uthmani.letterCorpus
}
