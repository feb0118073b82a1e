import Testing
import TilawaQuran

@Suite("Ayah ranges: parsing and checking against the text")
struct AyahRangeTests {
    private let quran = QuranText.uthmani

    @Test("good lists read as their ranges", arguments: [
        ("1:1-7", [AyahRange(surah: 1, first: 1, last: 7)]),
        ("2:255", [AyahRange(surah: 2, first: 255, last: 255)]),
        ("1:1-7; 114:1-6; 113:1-5", [AyahRange(surah: 1, first: 1, last: 7), AyahRange(surah: 114, first: 1, last: 6),
                                     AyahRange(surah: 113, first: 1, last: 5)]),
        ("  89 : 15 - 30 ;2:286 ", [AyahRange(surah: 89, first: 15, last: 30), AyahRange(surah: 2, first: 286, last: 286)]),
        ("2:255-255", [AyahRange(surah: 2, first: 255, last: 255)]),
    ])
    func good(text: String, expected: [AyahRange]) throws {
        #expect(try AyahRange.parseList(text, in: quran) == expected)
    }

    @Test("bad lists are refused with their reason", arguments: [
        ("", AyahRangeError.empty),
        ("  ", .empty),
        ("1", .malformed(part: "1")),
        ("1:", .malformed(part: "1:")),
        (":7", .malformed(part: ":7")),
        ("1:1-", .malformed(part: "1:1-")),
        ("1:1-2-3", .malformed(part: "1:1-2-3")),
        ("1:1-7;", .malformed(part: "")),
        ("1:1-7,114:1-6", .malformed(part: "1:1-7,114:1-6")),
        ("a:1", .malformed(part: "a:1")),
        ("-1:1", .malformed(part: "-1:1")),
        ("١:١", .malformed(part: "١:١")),
        ("1:1-114:6", .malformed(part: "1:1-114:6")),
        ("115:1", .unknownSurah(surah: 115, surahCount: 114)),
        ("0:1", .unknownSurah(surah: 0, surahCount: 114)),
        ("1:8", .unknownAyah(surah: 1, ayah: 8, ayahCount: 7)),
        ("1:0-3", .unknownAyah(surah: 1, ayah: 0, ayahCount: 7)),
        ("114:1-7", .unknownAyah(surah: 114, ayah: 7, ayahCount: 6)),
        ("1:7-1", .reversed(part: "1:7-1")),
        ("1:1-7; 1:3", .overlapping(range: "1:3", earlier: "1:1-7")),
    ])
    func bad(text: String, expected: AyahRangeError) {
        #expect(throws: expected) { try AyahRange.parseList(text, in: quran) }
    }

    @Test("a list prints as it is read back")
    func roundTrip() throws {
        let ranges = try AyahRange.parseList(" 1:1-7 ;114:1-6;2:255", in: quran)
        #expect(ranges.listDescription == "1:1-7; 114:1-6; 2:255")
        #expect(try AyahRange.parseList(ranges.listDescription, in: quran) == ranges)
    }

    @Test("errors carry a stable code and name the culprit")
    func errorText() {
        #expect(AyahRangeError.unknownAyah(surah: 1, ayah: 8, ayahCount: 7).code == "unknown_ayah")
        #expect(AyahRangeError.unknownAyah(surah: 1, ayah: 8, ayahCount: 7).description == "surah 1 has no ayah 8; it has ayahs 1 to 7")
        #expect(AyahRangeError.reversed(part: "1:7-1").code == "reversed_range")
        #expect(AyahRangeError.malformed(part: "x").code == "malformed_ayahs")
    }
}
