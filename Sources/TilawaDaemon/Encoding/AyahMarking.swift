import Foundation
import TilawaCore
import TilawaQuran
import TilawaStore

/// Turns a passage's ayah ranges and a recording's speech segments into `AyahMarkers`.
///
/// The units, in recitation order: an optional isti'adha before the passage, an optional
/// basmala before each range (recited before a surah's first ayah; some begin with it in the
/// middle of a surah too) except where the range starts at 1:1 — Al-Fatiha's basmala *is*
/// its ayah 1 — or at 9:1, which is recited without it; then the ayahs, weighed by their
/// letters in Tanzil's Uthmani text with Tanzil's basmala split off ayah 1.
public enum AyahMarking {
    /// The isti'adha as commonly recited (it is not Quran text, so not from Tanzil's file).
    public static let istiadha = "أَعُوذُ بِاللَّهِ مِنَ الشَّيْطَانِ الرَّجِيمِ"

    /// One unit of the plan with what it stands for.
    public struct PlannedUnit: Sendable, Equatable {
        public var surah: Int
        public var ayah: Int
        public var preface: AyahMarkers.Preface?
        public var unit: AlignmentUnit
    }

    /// The units of the stored range list `ayahs`; empty when it does not read.
    public static func plan(ayahs: String, quran: QuranText = .uthmani) -> [PlannedUnit] {
        guard let ranges = try? AyahRange.parseList(ayahs, in: quran), !ranges.isEmpty else { return [] }
        var units: [PlannedUnit] = [
            PlannedUnit(surah: ranges[0].surah, ayah: 0, preface: .istiadha,
                        unit: AlignmentUnit(letters: QuranText.letterCount(of: istiadha), optional: true)),
        ]
        let basmalaLetters = QuranText.letterCount(of: quran.ayah(surah: 1, ayah: 1) ?? "")
        for range in ranges {
            let opensFatiha = range.surah == 1 && range.first == 1
            if !opensFatiha && !(range.surah == 9 && range.first == 1) {
                units.append(PlannedUnit(surah: range.surah, ayah: 0, preface: .basmala,
                                         unit: AlignmentUnit(letters: basmalaLetters, optional: true)))
            }
            for number in range.ayahs {
                guard let text = quran.displayText(surah: range.surah, ayah: number)?.text else { continue }
                units.append(PlannedUnit(surah: range.surah, ayah: number, preface: nil,
                                         unit: AlignmentUnit(letters: QuranText.recitedLetterCount(of: text))))
            }
        }
        return units
    }

    /// The markers of a recording whose speech is `segments`, reciting `ayahs`.
    public static func markers(ayahs: String, segments: [SpeechSegment], aligner: AyahAligner = AyahAligner(),
                               quran: QuranText = .uthmani) -> (markers: AyahMarkers, alignment: AyahAlignment) {
        let plan = plan(ayahs: ayahs, quran: quran)
        let alignment = aligner.align(segments: segments, units: plan.map(\.unit))
        if let refusal = alignment.refusal {
            return (AyahMarkers(ayahs: ayahs, markers: [], unavailableReason: refusal.code), alignment)
        }
        let markers = alignment.placements.map { placement in
            let planned = plan[placement.unit]
            return AyahMarkers.Marker(surah: planned.surah, ayah: planned.ayah, preface: planned.preface,
                                      startSeconds: (placement.start * 100).rounded() / 100,
                                      endSeconds: (placement.end * 100).rounded() / 100)
        }
        let notFound = alignment.notFound.map { AyahMarkers.AyahReference(surah: plan[$0].surah, ayah: plan[$0].ayah) }
        return (AyahMarkers(ayahs: ayahs, markers: markers, notFound: notFound), alignment)
    }
}
