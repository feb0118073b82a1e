import Foundation
import Testing
@testable import TilawaQuran

@Suite("Quran text: the embedded Tanzil Uthmani file and its index")
struct QuranTextTests {
    private let quran = QuranText.uthmani

    @Test("the embedded text is the committed file, byte for byte")
    func embeddedTextIsTheFile() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "data/quran/quran-uthmani.txt")
        let bytes = try Data(contentsOf: file)
        #expect(Data(TanzilUthmaniFile.text.utf8) == bytes)
    }

    @Test("the index holds 114 surahs and 6,236 ayahs")
    func counts() {
        #expect(quran.indexedSurahCount == 114)
        #expect(quran.ayahCount == 6236)
        #expect(quran.ayahCount(surah: 1) == 7)
        #expect(quran.ayahCount(surah: 2) == 286)
        #expect(quran.ayahCount(surah: 9) == 129)
        #expect(quran.ayahCount(surah: 114) == 6)
        #expect(quran.ayahCount(surah: 0) == nil)
        #expect(quran.ayahCount(surah: 115) == nil)
    }

    @Test("known ayahs read exactly as Tanzil writes them")
    func knownAyahs() {
        #expect(quran.ayah(surah: 1, ayah: 1) == "بِسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ")
        #expect(quran.ayah(surah: 112, ayah: 2) == "ٱللَّهُ ٱلصَّمَدُ")
        #expect(quran.ayah(surah: 114, ayah: 6) == "مِنَ ٱلْجِنَّةِ وَٱلنَّاسِ")
        #expect(quran.ayah(surah: 2, ayah: 255)?.hasPrefix("ٱللَّهُ لَآ إِلَـٰهَ إِلَّا هُوَ ٱلْحَىُّ ٱلْقَيُّومُ") == true)
        #expect(quran.ayah(surah: 9, ayah: 1)?.hasPrefix("بَرَآءَةٌ") == true)
        #expect(quran.ayah(surah: 1, ayah: 8) == nil)
        #expect(quran.ayah(surah: 0, ayah: 1) == nil)
    }

    @Test("the copyright block is kept and names Tanzil and the licence")
    func copyrightNotice() {
        #expect(quran.copyrightNotice.hasPrefix("# PLEASE DO NOT REMOVE OR CHANGE THIS COPYRIGHT BLOCK"))
        #expect(quran.copyrightNotice.contains("Tanzil Quran Text (Uthmani"))
        #expect(quran.copyrightNotice.contains("Creative Commons Attribution 3.0"))
        #expect(TanzilUthmaniFile.text.hasSuffix(quran.copyrightNotice))
    }

    @Test("a line out of order is left out, not trusted")
    func outOfOrderLinesAreSkipped() {
        let text = QuranText(parsing: "1|1|a\n1|3|c\n1|2|b\n2|1|d\n# notice\n")
        #expect(text.ayahCount(surah: 1) == 2)
        #expect(text.ayah(surah: 1, ayah: 2) == "b")
        #expect(text.ayah(surah: 2, ayah: 1) == "d")
        #expect(text.copyrightNotice == "# notice\n")
    }

    @Test("ayahs(in:) lists every ayah of the ranges in order, text verbatim")
    func expandRanges() throws {
        let ranges = try AyahRange.parseList("114:1-6; 113:1-5; 2:255", in: quran)
        let ayahs = quran.ayahs(in: ranges)
        #expect(ayahs.count == 12)
        #expect(ayahs.map(\.surah) == Array(repeating: 114, count: 6) + Array(repeating: 113, count: 5) + [2])
        #expect(ayahs.first?.text == quran.ayah(surah: 114, ayah: 1))
        #expect(ayahs.last?.ayah == 255)
        #expect(quran.ayahs(inList: "1:9") == [])
        #expect(quran.ayahs(inList: nil) == [])
    }
}
