import Testing
import TilawaCore

/// Speech segments from a script: each part is speech of `seconds`, then a pause of `pause`.
private func segments(_ parts: [(seconds: Double, pause: Double)], lead: Double = 0.6) -> [SpeechSegment] {
    var time = lead
    return parts.map { part in
        defer { time += part.seconds + part.pause }
        return SpeechSegment(start: time, end: time + part.seconds)
    }
}

@Suite("Ayah aligner")
struct AyahAlignerTests {
    let aligner = AyahAligner()
    // 0.08 s of speech a letter.
    let pace = 0.08

    @Test("Pauses inside long ayahs, longer than those between ayahs, are not taken for boundaries")
    func pausesInsideAyahs() {
        let letters = [20, 60, 30, 80]
        let units = letters.map { AlignmentUnit(letters: $0) }
        // Ayah 2 in two parts and ayah 4 in three, each inner pause (1.2 s) longer than any between ayahs (0.5 s):
        // the three longest pauses are all inside ayahs.
        let script: [(seconds: Double, pause: Double)] = [
            (20 * pace, 0.5),
            (25 * pace, 1.2), (35 * pace, 0.5),
            (30 * pace, 0.5),
            (30 * pace, 1.2), (20 * pace, 1.2), (30 * pace, 0),
        ]
        let speech = segments(script)
        let alignment = aligner.align(segments: speech, units: units)
        #expect(alignment.refusal == nil)
        #expect(alignment.placements.map(\.unit) == [0, 1, 2, 3])
        #expect(alignment.placements.map(\.start) == [speech[0].start, speech[1].start, speech[3].start, speech[4].start])
        #expect(alignment.placements.map(\.end) == [speech[0].end, speech[2].end, speech[3].end, speech[6].end])
    }

    @Test("A basmala recited before the first ayah is placed as its own unit; an isti'adha not recited is left out")
    func leadingBasmala() {
        let units = [AlignmentUnit(letters: 23, optional: true), AlignmentUnit(letters: 19, optional: true)]
            + [13, 9, 12, 16].map { AlignmentUnit(letters: $0) }
        let speech = segments([(19 * pace, 0.9), (13 * pace, 0.6), (9 * pace, 0.7), (12 * pace, 0.5), (16 * pace, 0)])
        let alignment = aligner.align(segments: speech, units: units)
        #expect(alignment.refusal == nil)
        #expect(alignment.placements.map(\.unit) == [1, 2, 3, 4, 5])
        #expect(alignment.placements.first?.start == speech[0].start)
        #expect(alignment.placements[1].start == speech[1].start)
    }

    @Test("Without the basmala, the same passage places its ayahs from the first segment")
    func noOpening() {
        let units = [AlignmentUnit(letters: 23, optional: true), AlignmentUnit(letters: 19, optional: true)]
            + [13, 9, 12, 16].map { AlignmentUnit(letters: $0) }
        let speech = segments([(13 * pace, 0.6), (9 * pace, 0.7), (12 * pace, 0.5), (16 * pace, 0)])
        let alignment = aligner.align(segments: speech, units: units)
        #expect(alignment.placements.map(\.unit) == [2, 3, 4, 5])
        #expect(alignment.placements.map(\.start) == speech.map(\.start))
    }

    @Test("A recording of another passage gets no times")
    func wrongPassage() {
        // Recited: ayahs of 10, 80, 12, 70 and 15 letters; aligned against five ayahs of the same total, evenly long.
        let speech = segments([(10 * pace, 0.6), (40 * pace, 0.7), (40 * pace, 0.6), (12 * pace, 0.8),
                               (35 * pace, 0.5), (35 * pace, 0.9), (15 * pace, 0)])
        let units = [37, 38, 37, 38, 37].map { AlignmentUnit(letters: $0) }
        let alignment = aligner.align(segments: speech, units: units)
        #expect(alignment.refusal == .poorFit)
        #expect(alignment.placements.isEmpty)
        #expect((alignment.misfit ?? 0) > aligner.misfitLimit)
    }

    @Test("Two ayahs recited without a pause share a block, split in proportion to their letters")
    func sharedBlock() {
        let letters = [20, 12, 30, 25, 18, 22, 16, 28]
        let units = letters.map { AlignmentUnit(letters: $0) }
        // No pause between the second and third ayahs.
        let speech = segments([(20 * pace, 0.7), (42 * pace, 0.6)] + letters.dropFirst(3).map { (Double($0) * pace, 0.6) })
        let alignment = aligner.align(segments: speech, units: units)
        #expect(alignment.refusal == nil)
        #expect(alignment.placements.map(\.unit) == Array(0..<8))
        #expect(alignment.placements[1].start == speech[1].start)
        let boundary = speech[1].start + speech[1].duration * 12 / 42
        #expect(abs(alignment.placements[2].start - boundary) < 0.001)
        #expect(alignment.placements[1].end == alignment.placements[2].start)
    }

    @Test("Fewer pauses than ayah boundaries is refused")
    func tooFewPauses() {
        let speech = segments([(30 * pace, 0.6), (30 * pace, 0)])
        let alignment = aligner.align(segments: speech, units: [15, 15, 15, 15].map { AlignmentUnit(letters: $0) })
        #expect(alignment == .refused(.tooFewPauses))
    }

    @Test("Speech far too short for the passage is refused")
    func durationMismatch() {
        // 200 letters in 2 s of speech: 0.01 s a letter.
        let speech = segments([(0.7, 0.5), (0.7, 0.5), (0.6, 0)])
        let alignment = aligner.align(segments: speech, units: [80, 60, 60].map { AlignmentUnit(letters: $0) })
        #expect(alignment == .refused(.durationMismatch))
    }

    @Test("No speech, or no ayahs, is refused")
    func nothingToAlign() {
        #expect(aligner.align(segments: [], units: [AlignmentUnit(letters: 10)]) == .refused(.noSpeech))
        #expect(aligner.align(segments: segments([(1, 0)]), units: [AlignmentUnit(letters: 10, optional: true)]) == .refused(.noAyahs))
    }
}
