import Testing
import TilawaQuran

@Suite("Quran text: the basmala split at display time")
struct BasmalaSplitTests {
    private let quran = QuranText.uthmani
    private let basmala = "بِسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ"

    @Test("Al-Fatiha's first ayah is the basmala and stays whole")
    func fatiha() {
        #expect(quran.displayText(surah: 1, ayah: 1) == AyahDisplayText(basmala: nil, text: basmala))
    }

    @Test("At-Tawba has no basmala to split")
    func tawba() throws {
        let split = try #require(quran.displayText(surah: 9, ayah: 1))
        #expect(split.basmala == nil)
        #expect(split.text == quran.ayah(surah: 9, ayah: 1))
    }

    @Test("ayah 1 of another surah loses the basmala Tanzil put in front of it")
    func otherSurahs() throws {
        let split = try #require(quran.displayText(surah: 114, ayah: 1))
        #expect(split.basmala == basmala)
        #expect(split.text == "قُلْ أَعُوذُ بِرَبِّ ٱلنَّاسِ")
        // The file is not changed: the whole ayah still starts with the basmala.
        #expect(quran.ayah(surah: 114, ayah: 1) == basmala + " " + split.text)
    }

    @Test("95:1 and 97:1 write the basmala with a shadda; it is split and kept as written")
    func shaddaVariant() throws {
        for surah in [95, 97] {
            let split = try #require(quran.displayText(surah: surah, ayah: 1))
            #expect(split.basmala?.hasPrefix("بِّسْمِ") == true)
            #expect(quran.ayah(surah: surah, ayah: 1) == (split.basmala ?? "") + " " + split.text)
        }
    }

    @Test("every surah but 1 and 9 has its basmala split, leaving a non-empty ayah")
    func allSurahs() throws {
        for surah in 1...114 {
            let split = try #require(quran.displayText(surah: surah, ayah: 1))
            if surah == 1 || surah == 9 {
                #expect(split.basmala == nil, "surah \(surah)")
            } else {
                #expect(split.basmala != nil, "surah \(surah)")
                #expect(!split.text.isEmpty, "surah \(surah)")
            }
        }
    }

    @Test("later ayahs, and a basmala inside an ayah (27:30), are never split")
    func laterAyahs() throws {
        #expect(quran.displayText(surah: 114, ayah: 2)?.basmala == nil)
        let naml = try #require(quran.displayText(surah: 27, ayah: 30))
        #expect(naml.basmala == nil)
        #expect(naml.text.contains(basmala))
        #expect(quran.displayText(surah: 114, ayah: 7) == nil)
    }
}
