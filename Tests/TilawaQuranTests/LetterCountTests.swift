import Testing
import TilawaQuran

@Suite("Letters of an ayah")
struct LetterCountTests {
    let quran = QuranText.uthmani

    @Test("Letters are counted without harakat, small letters, superscript alef or pause marks")
    func marksAreNotLetters() throws {
        // مَٰلِكِ يَوْمِ ٱلدِّينِ: م ل ك ي و م ٱ ل د ي ن (the superscript alef is a mark).
        #expect(QuranText.letterCount(of: try #require(quran.ayah(surah: 1, ayah: 4))) == 11)
        // The basmala: ب س م ٱ ل ل ه ٱ ل ر ح م ن ٱ ل ر ح ي م.
        #expect(QuranText.letterCount(of: try #require(quran.ayah(surah: 1, ayah: 1))) == 19)
    }

    @Test("Disjoined letters are weighed by their recited names", arguments: [(2, 1, 15), (36, 1, 8), (42, 2, 18)])
    func disjoinedLetters(surah: Int, ayah: Int, weight: Int) throws {
        let text = try #require(quran.displayText(surah: surah, ayah: ayah)?.text)
        #expect(QuranText.recitedLetterCount(of: text) == weight)
        #expect(QuranText.letterCount(of: text) < weight)
    }

    @Test("An ordinary ayah is recited as many letters as it has")
    func ordinaryAyah() throws {
        let text = try #require(quran.ayah(surah: 112, ayah: 2))
        #expect(QuranText.recitedLetterCount(of: text) == QuranText.letterCount(of: text))
    }

    /// The symbols of `letters`, each letter as `letterSymbols` numbers it.
    private func symbols(_ letters: String) -> [UInt8] {
        letters.unicodeScalars.flatMap { QuranText.letterSymbols(of: String($0)) }
    }

    @Test("the letters as they sound: the alef wasla and a sun letter's lam silent, a letter under ۟ not said, the superscript alef said")
    func lettersAsTheySound() {
        #expect(QuranText.letterSymbolCount == 36)
        // ٱلرَّحْمَـٰنِ: ar-raḥmān — no wasla, no lam, the superscript alef as an alef.
        #expect(QuranText.letterSymbols(of: "ٱلرَّحْمَـٰنِ") == symbols("رحمان"))
        // ٱلْعَصْرِ: al-ʿaṣr — a moon letter: the lam (with its sukun) is said.
        #expect(QuranText.letterSymbols(of: "وَٱلْعَصْرِ") == symbols("ولعصر"))
        // ءَامَنُوا۟: the alef after the waw is not said.
        #expect(QuranText.letterSymbols(of: "ءَامَنُوا۟") == symbols("ءامنو"))
        #expect(QuranText.letterSymbols(of: "") == [])
        #expect(QuranText.letterSymbols(of: "abc ۝ ١٢") == [])
        let corpus = QuranText.uthmaniLetterCorpus
        #expect(corpus.ayahEnds.count == 6236)
        #expect(corpus.ayahEnds.last == corpus.letters.count)
        #expect(corpus.letters.allSatisfy { Int($0) < QuranText.letterSymbolCount })
    }
}
