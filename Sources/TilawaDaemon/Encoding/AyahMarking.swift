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
        /// What is recited: the isti'adha, the basmala, or the ayah (without the basmala Tanzil
        /// writes on a surah's first ayah).
        public var text: String
    }

    /// The units of the stored range list `ayahs`; empty when it does not read.
    public static func plan(ayahs: String, quran: QuranText = .uthmani) -> [PlannedUnit] {
        guard let ranges = try? AyahRange.parseList(ayahs, in: quran), !ranges.isEmpty else { return [] }
        var units: [PlannedUnit] = [
            PlannedUnit(surah: ranges[0].surah, ayah: 0, preface: .istiadha,
                        unit: AlignmentUnit(letters: QuranText.letterCount(of: istiadha), optional: true), text: istiadha),
        ]
        let basmala = quran.ayah(surah: 1, ayah: 1) ?? ""
        let basmalaLetters = QuranText.letterCount(of: basmala)
        for range in ranges {
            let opensFatiha = range.surah == 1 && range.first == 1
            if !opensFatiha && !(range.surah == 9 && range.first == 1) {
                units.append(PlannedUnit(surah: range.surah, ayah: 0, preface: .basmala,
                                         unit: AlignmentUnit(letters: basmalaLetters, optional: true), text: basmala))
            }
            for number in range.ayahs {
                guard let text = quran.displayText(surah: range.surah, ayah: number)?.text else { continue }
                units.append(PlannedUnit(surah: range.surah, ayah: number, preface: nil,
                                         unit: AlignmentUnit(letters: QuranText.recitedLetterCount(of: text)), text: text))
            }
        }
        return units
    }

    /// The markers of a recording whose speech is `segments`, reciting `ayahs`. With its
    /// `sound`, a placement its pauses allow is kept only when the sound fits the placed
    /// letters (`soundAccepts`); without it (a row encoded before the check), by its pauses alone.
    public static func markers(ayahs: String, segments: [SpeechSegment], sound: SoundFrames? = nil,
                               aligner: AyahAligner = AyahAligner(),
                               quran: QuranText = .uthmani) -> (markers: AyahMarkers, alignment: AyahAlignment) {
        let plan = plan(ayahs: ayahs, quran: quran)
        var alignment = aligner.align(segments: segments, units: plan.map(\.unit))
        if alignment.refusal == nil, let sound {
            let spans = alignment.fit.map { fit in
                let text = fit.kind == .runTogether && fit.unit + 1 < plan.count
                    ? plan[fit.unit].text + plan[fit.unit + 1].text : plan[fit.unit].text
                return RecitationCheck.Span(start: fit.start, end: fit.end, letters: QuranText.letterSymbols(of: text))
            }
            let letters = spans.reduce(0) { $0 + $1.letters.count }
            let score = RecitationCheck(alphabet: QuranText.letterSymbolCount).zScore(
                frames: sound, speech: segments, spans: spans, corpus: QuranText.uthmaniLetterCorpus.letters,
                ends: QuranText.uthmaniLetterCorpus.ayahEnds,
                seed: UInt64(sound.count) &* 0x9E37_79B9 &+ UInt64(letters),
                settledOutside: (soundBar(letters: letters) - 2)...(soundBar(letters: letters) + 2))
            alignment.soundScore = score
            if let score, !soundAccepts(score: score, letters: letters) {
                alignment = .refused(.soundMismatch, misfit: alignment.misfit, fit: alignment.fit)
                alignment.soundScore = score
            }
        }
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

    /// Whether a placement whose sound scored `score` (`RecitationCheck`'s z-score) over
    /// `letters` placed letters is the passage. Another passage whose pauses fit scores about
    /// N(0.3, 0.9) however long it is (the highest seen: 0.6 under 150 letters, 2.2 above, in
    /// the bench's 27 and a scan of 20 passages against the Al-Fatiha fixture); the passage
    /// scores higher the more letters it has (median 5). Under 150 letters there is little
    /// evidence either way, so the bar is lower there: about one correct recitation in
    /// fifteen under 100 letters loses its markers, which costs the coach less than markers
    /// over another passage. Calibrated with `make bench-align` on seeds 27 and 101–112.
    public static func soundAccepts(score: Double, letters: Int) -> Bool {
        score >= soundBar(letters: letters)
    }

    /// The score a placement of `letters` letters must reach.
    static func soundBar(letters: Int) -> Double {
        switch letters {
        case ..<100: 0.7
        case ..<150: 1.0
        default: 2.5
        }
    }
}
