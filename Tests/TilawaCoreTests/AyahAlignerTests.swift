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

    @Test("Two ayahs recited without a pause: the first gets the block, the second is not found rather than given a guessed start")
    func sharedBlock() {
        let letters = [20, 12, 30, 25, 18, 22, 16, 28]
        let units = letters.map { AlignmentUnit(letters: $0) }
        // No pause between the second and third ayahs.
        let speech = segments([(20 * pace, 0.7), (42 * pace, 0.6)] + letters.dropFirst(3).map { (Double($0) * pace, 0.6) })
        let alignment = aligner.align(segments: speech, units: units)
        #expect(alignment.refusal == nil)
        #expect(alignment.placements.map(\.unit) == [0, 1, 3, 4, 5, 6, 7])
        #expect(alignment.notFound == [2])
        #expect(alignment.placements[1].start == speech[1].start && alignment.placements[1].end == speech[1].end)
        #expect(alignment.placements.dropFirst(2).map(\.start) == speech.dropFirst(2).map(\.start))
    }

    @Test("An ayah restarted (its first words, a pause, the whole ayah) starts at the first attempt; the others keep theirs")
    func restartedAyah() {
        let letters = [20, 16, 30, 25, 18]
        // Ayah 2's first five letters, a pause, then all of it.
        let speech = segments([(20 * pace, 0.7), (5 * pace, 0.6), (16 * pace, 0.6), (30 * pace, 0.6), (25 * pace, 0.6), (18 * pace, 0)])
        let alignment = aligner.align(segments: speech, units: letters.map { AlignmentUnit(letters: $0) })
        #expect(alignment.refusal == nil && alignment.notFound.isEmpty)
        #expect(alignment.placements.map(\.unit) == [0, 1, 2, 3, 4])
        #expect(alignment.placements.map(\.start) == [speech[0].start, speech[1].start, speech[3].start, speech[4].start, speech[5].start])
        #expect(alignment.placements[1].end == speech[2].end)
    }

    @Test("Al-Fatiha sent for Al-Ikhlas gets no times, though its pairs of ayahs last as Al-Ikhlas's ayahs would")
    func fatihaForIkhlas() {
        // The speech of a recitation of Al-Fatiha (make bench-align, seed 27, rec00): seven
        // ayahs, six pauses.
        let speech = [(0.82, 2.98), (4.42, 6.48), (7, 8.48), (8.84, 10.32), (11.6, 13.84), (14.52, 16.64), (17.38, 22.54)]
            .map { SpeechSegment(start: $0.0, end: $0.1) }
        let openings = [AlignmentUnit(letters: 24, optional: true)]
        let fatiha = aligner.align(segments: speech, units: openings + [19, 17, 12, 11, 19, 18, 43].map { AlignmentUnit(letters: $0) })
        #expect(fatiha.refusal == nil)
        #expect(fatiha.placements.map(\.start) == speech.map(\.start))
        // Against Al-Ikhlas (and its basmala) each short ayah would hold a pause: it is one breath.
        let ikhlas = aligner.align(segments: speech, units: openings + [AlignmentUnit(letters: 19, optional: true)]
                                   + [11, 9, 12, 15].map { AlignmentUnit(letters: $0) })
        #expect(ikhlas.refusal == .poorFit && (ikhlas.misfit ?? 0) > aligner.misfitLimit)
        #expect(ikhlas.placements.isEmpty && ikhlas.notFound.isEmpty)
        // The refused placement is kept for a person to read: the units in order, each with its speech.
        #expect(!ikhlas.fit.isEmpty && ikhlas.fit.map(\.unit) == ikhlas.fit.map(\.unit).sorted())
    }

    @Test("A recording placed only at a pace quicker than any recitation gets no times, though its pauses fit")
    func implausiblePace() {
        // The speech of a recitation of Al-Qadr (97:1-5; make bench-align, seed 104, rec14),
        // 12.2 s, aligned against Al-Imran 190-194 (342 letters): its pauses fit those long
        // ayahs (misfit 0.15, under the limit) at 0.039 s a letter, twice as quick as a hadr.
        let speech = [(0.56, 2.74), (4.1, 6.18), (6.62, 8.24), (9.62, 10.4), (11.26, 14.6), (15.22, 16.22), (17.56, 19.94)]
            .map { SpeechSegment(start: $0.0, end: $0.1) }
        let units = [AlignmentUnit(letters: 24, optional: true), AlignmentUnit(letters: 19, optional: true)]
            + [51, 95, 44, 94, 58].map { AlignmentUnit(letters: $0) }
        let refused = aligner.align(segments: speech, units: units)
        #expect(refused == .refused(.durationMismatch))
        // The old floor of 0.03 s a letter gave it times: the refusal is the pace's alone.
        let before = AyahAligner(secondsPerLetter: 0.03...0.6).align(segments: speech, units: units)
        #expect(before.refusal == nil && !before.placements.isEmpty)
        // The same speech read as slowly as the bench's quickest voice (0.1 s a letter) is placed.
        let slower = speech.map { SpeechSegment(start: $0.start * 2.6, end: $0.end * 2.6) }
        #expect(aligner.align(segments: slower, units: units).refusal == nil)
    }

    @Test("A placement whose openings absorb ayahs is refused when that leaves a pace quicker than any recitation")
    func openingsAbsorbingAyahs() {
        // Six blocks of 1.1 s against the two openings and four short ayahs: the required
        // letters alone (86 in 6.6 s, 0.077 s a letter) pass the check before placing, but the
        // placement that takes the first two blocks as the openings reads 129 letters at 0.051.
        let speech = segments((0..<6).map { _ in (1.1, 0.6) })
        let units = [AlignmentUnit(letters: 24, optional: true), AlignmentUnit(letters: 19, optional: true)]
            + [20, 22, 21, 23].map { AlignmentUnit(letters: $0) }
        let alignment = aligner.align(segments: speech, units: units)
        #expect(alignment.refusal == .durationMismatch)
        #expect(alignment.placements.isEmpty && alignment.fit.map(\.unit) == [0, 1, 2, 3, 4, 5])
        #expect(AyahAligner(secondsPerLetter: 0.03...0.6).align(segments: speech, units: units).refusal == nil)
    }

    @Test("More restarts and runs-together than one in five ayahs (one always allowed) is no recitation of the passage")
    func tooManyMistakes() {
        // Five ayahs: the first two in one block, the third restarted, the last two in one block.
        let speech = segments([(40 * pace, 0.6), (4 * pace, 0.5), (16 * pace, 0.6), (43 * pace, 0)])
        let alignment = aligner.align(segments: speech, units: [20, 20, 16, 18, 25].map { AlignmentUnit(letters: $0) })
        #expect(alignment.refusal == .poorFit)
        #expect(alignment.placements.isEmpty)
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
