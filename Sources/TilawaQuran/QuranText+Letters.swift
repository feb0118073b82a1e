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
