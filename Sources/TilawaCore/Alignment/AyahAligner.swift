import Foundation

/// Places a passage's ayahs in a recording from its pauses alone: which pauses end an ayah.
///
/// Students pause inside long ayahs too, so the N − 1 longest pauses are not the
/// boundaries. Instead, dynamic programming over the pauses between the speech segments
/// chooses the boundaries whose blocks of speech best match each unit's expected speech
/// duration — its share of the recording's speech by letter count — with a small reward
/// for ending a unit at a longer pause, and a cost for more pauses inside a unit than a
/// breath every `breathLetters` letters explains (an opening, or an ayah under
/// `shortLetters` letters, is recited in one breath: a pause inside one costs more). Optional
/// units (the isti'adha, a basmala before a surah) may be left out.
///
/// Two recitations a student makes by mistake are explained rather than refused: an ayah
/// **restarted** (its first words, a pause, then the whole ayah — the ayah's time starts at
/// the first attempt), and two ayahs **run together** without a pause the detector can see
/// (one block: the first ayah gets the block's time, the second is `notFound` rather than
/// given a guessed start). Each costs something, and more than one in five required units
/// of them (one always allowed) is no recitation of this passage: refused.
///
/// The pace (seconds of speech a letter) depends on which optional units were recited, so
/// the placement starts from each hypothesis (none, each one, all), re-estimates the pace
/// from the units it found until it settles, and keeps the cheapest.
///
/// A recording of another passage usually fits badly: when the best placement's misfit
/// (the mean over units of the squared z-score of its log duration ratio, plus the
/// unexplained pauses) exceeds `misfitLimit`, or it needs too many restarts, runs-together
/// and pauses inside one-breath units, nothing is placed and the refusal says so. So it is
/// when the placement's own pace — the speech over the letters of the units it found — is
/// quicker than `secondsPerLetter` allows: the check before placing counts the required
/// letters only, and a short recording aligned against a long passage of long ayahs (or
/// with its first ayahs taken for the isti'adha and basmala) fits its pauses only by
/// reading twice as quick as any reciter. The constants were calibrated with
/// `make bench-align` (seed 27; seeds 101–103 held out; the pace's floor from what a quick
/// hadr can reach, not from the bench). From pauses alone a recording of another passage
/// whose pauses happen to fit at a human pace is not always told apart — long ayahs take
/// any grouping of the segments, and the openings any two short ayahs: the bench's figures
/// say how often (about one wrong-passage alignment in ten on held-out seeds).
public struct AyahAligner: Sendable {
    /// Above this misfit the alignment is refused as `poor_fit`.
    public var misfitLimit: Double
    /// The weight of the reward for a boundary at a longer pause.
    public var pauseReward: Double
    /// The cost of two ayahs sharing one block of speech (no pause seen between them).
    public var sharedBlockCost: Double
    /// The cost of an ayah restarted (a short first attempt, a pause, the whole ayah).
    public var restartCost: Double
    /// The longest a restarted ayah's first attempt may be, as a share of the ayah.
    public var restartShare: Double
    /// Letters a pause inside a unit is expected every (a breath).
    public var breathLetters: Double
    /// The weight of each squared pause inside a unit beyond those breaths.
    public var extraPauseCost: Double
    /// Ayahs of fewer letters are recited in one breath, as the openings are.
    public var shortLetters: Int
    /// The cost of each pause inside a one-breath unit.
    public var shortPauseCost: Double
    /// The share of the required units that may be restarted, run together or broken by a
    /// pause inside a one-breath unit (at least one is always allowed).
    public var anomalyShare: Double
    /// Plausible seconds of speech per letter over a whole recitation, from a quick reading
    /// (hadr) to a slow one (tartil) with long madd. Quicker than 0.06 s (some 16 letters a
    /// second of speech, pauses not counted) is beyond even a quick hadr: a placement that
    /// needs it has put a short recording's few ayahs against a long passage (the bench's
    /// espeak-ng voice, at its quickest, reads 0.10 s a letter).
    public var secondsPerLetter: ClosedRange<Double>

    /// An aligner with the calibrated defaults.
    public init(misfitLimit: Double = 0.8, pauseReward: Double = 0.3, sharedBlockCost: Double = 3, restartCost: Double = 0.5,
                restartShare: Double = 0.6, breathLetters: Double = 30, extraPauseCost: Double = 1, shortLetters: Int = 20,
                shortPauseCost: Double = 1, anomalyShare: Double = 0.2, secondsPerLetter: ClosedRange<Double> = 0.06...0.6) {
        self.misfitLimit = misfitLimit
        self.pauseReward = pauseReward
        self.sharedBlockCost = sharedBlockCost
        self.restartCost = restartCost
        self.restartShare = restartShare
        self.breathLetters = breathLetters
        self.extraPauseCost = extraPauseCost
        self.shortLetters = shortLetters
        self.shortPauseCost = shortPauseCost
        self.anomalyShare = anomalyShare
        self.secondsPerLetter = secondsPerLetter
    }

    /// Aligns `units`, in recitation order, to the speech `segments` of one recording.
    public func align(segments unsorted: [SpeechSegment], units: [AlignmentUnit]) -> AyahAlignment {
        let segments = unsorted.filter { $0.end > $0.start }.sorted { $0.start < $1.start }
        let required = units.filter { !$0.optional }
        let requiredLetters = required.reduce(0) { $0 + Self.weight($1) }
        let optionalLetters = units.filter(\.optional).map(Self.weight)
        guard !required.isEmpty else { return .refused(.noAyahs) }
        guard !segments.isEmpty else { return .refused(.noSpeech) }
        // One missing pause can be absorbed by a shared block; more need more pauses than there are.
        guard segments.count + 1 >= required.count else { return .refused(.tooFewPauses) }

        var speechBefore = [0.0]
        for segment in segments { speechBefore.append(speechBefore[speechBefore.count - 1] + segment.duration) }
        let totalSpeech = speechBefore[segments.count]
        // Too slow even when every optional unit was recited, or too quick for the required ones alone.
        guard totalSpeech / Double(requiredLetters + optionalLetters.reduce(0, +)) <= secondsPerLetter.upperBound,
              totalSpeech / Double(requiredLetters) >= secondsPerLetter.lowerBound else {
            return .refused(.durationMismatch)
        }

        let best = bestPlacement(segments: segments, speechBefore: speechBefore, units: units)
        guard let best else { return .refused(.poorFit) }
        // The check above counted the required letters only; openings that absorbed ayahs make the
        // placement's own pace quicker than any recitation.
        guard best.pace >= secondsPerLetter.lowerBound else {
            return .refused(.durationMismatch, misfit: best.misfit, fit: best.fit)
        }
        guard best.misfit <= misfitLimit else { return .refused(.poorFit, misfit: best.misfit, fit: best.fit) }
        guard best.anomalies <= max(1, Int(Double(required.count) * anomalyShare)) else {
            return .refused(.poorFit, misfit: best.misfit, fit: best.fit)
        }
        return AyahAlignment(placements: best.units, notFound: best.notFound, misfit: best.misfit, fit: best.fit)
    }

    /// The cheapest placement of `units` over every hypothesis of which optional units were
    /// recited, each re-estimating the pace from the units it found until it settles; nil when
    /// none covers every segment.
    private func bestPlacement(segments: [SpeechSegment], speechBefore: [Double], units: [AlignmentUnit]) -> Placement? {
        let totalSpeech = speechBefore[segments.count]
        let requiredLetters = units.filter { !$0.optional }.reduce(0) { $0 + Self.weight($1) }
        let optionalLetters = units.filter(\.optional).map(Self.weight)
        let hypotheses = Set([requiredLetters, requiredLetters + optionalLetters.reduce(0, +)]
            + optionalLetters.map { requiredLetters + $0 }).sorted()
        var best: Placement? = nil
        // Hypotheses often settle on the same letters: place each pace once.
        var placed: [Int: Placement?] = [:]
        for hypothesis in hypotheses {
            var letters = hypothesis
            var settled: Placement? = nil
            for _ in 0..<4 {
                let found: Placement?
                if let known = placed[letters] {
                    found = known
                } else {
                    found = place(segments: segments, speechBefore: speechBefore, units: units, secondsPerLetter: totalSpeech / Double(letters))
                    placed[letters] = found
                }
                guard let found else { break }
                settled = found
                let foundLetters = found.units.reduce(0) { $0 + Self.weight(units[$1.unit]) }
                    + found.notFound.reduce(0) { $0 + Self.weight(units[$1]) }
                if foundLetters == letters { break }
                letters = foundLetters
            }
            if let settled, settled.cost < best?.cost ?? .infinity { best = settled }
        }
        return best
    }

    /// A unit's letters as the pace counts them (at least one).
    private static func weight(_ unit: AlignmentUnit) -> Int { max(unit.letters, 1) }

    /// The z-score of a unit of `letters` letters lasting `duration` where `expected` was due.
    ///
    /// Short units vary more (a word's onset and its last madd weigh more in them), so their
    /// spread is wider.
    static func zScore(duration: Double, expected: Double, letters: Int) -> Double {
        let spread = 0.1 + 0.4 / Double(max(letters, 1)).squareRoot()
        return log(max(duration, 0.01) / max(expected, 0.01)) / spread
    }

    /// The reward for a boundary at a pause of `seconds`: grows with the pause, slower past a second.
    static func pauseBonus(_ seconds: Double) -> Double {
        log(1 + max(seconds, 0) / 0.3)
    }

    /// The cost of `pauses` pauses inside a unit of `letters` letters beyond its breaths; an
    /// opening (`oneBreath`) or a short ayah has none.
    private func insidePauses(_ pauses: Int, letters: Int, oneBreath: Bool) -> Double {
        guard pauses > 0 else { return 0 }
        let short = oneBreath || letters < shortLetters
        let extra = max(0, Double(pauses) - (oneBreath ? 0 : Double(letters) / breathLetters))
        return extraPauseCost * extra * extra + (short ? shortPauseCost * Double(pauses) : 0)
    }

    /// Whether a unit of `letters` letters is recited in one breath.
    private func isOneBreath(_ unit: AlignmentUnit) -> Bool { unit.optional || unit.letters < shortLetters }

    /// One placement at a fixed pace: the units found and those recited without a time of
    /// their own, the total cost the programme minimised, the misfit reported, and how many
    /// restarts, runs-together and pauses inside one-breath units it took.
    private struct Placement {
        var units: [AyahAlignment.Placement]
        var notFound: [Int]
        var fit: [AyahAlignment.UnitFit]
        var cost: Double
        var misfit: Double
        var anomalies: Int
        /// The seconds of speech a letter it was placed at.
        var pace: Double
    }

    /// How a step of the programme placed units: an optional unit left out, one unit, one
    /// unit restarted, two ayahs sharing a block.
    private enum Step {
        case skip, one, restart, shared
    }

    /// The best placement at a fixed pace, or nil when no placement covers every segment.
    private func place(segments: [SpeechSegment], speechBefore: [Double], units: [AlignmentUnit],
                       secondsPerLetter pace: Double) -> Placement? {
        let count = segments.count
        let infinity = Double.infinity
        func expected(_ unit: AlignmentUnit) -> Double { pace * Double(Self.weight(unit)) }
        // cost[k][j]: the best cost of units 0..<k covering segments 0..<j; from[k][j] the j
        // before the last step and what it was.
        var cost = Array(repeating: Array(repeating: infinity, count: count + 1), count: units.count + 1)
        var from = Array(repeating: Array(repeating: (start: -1, step: Step.skip), count: count + 1), count: units.count + 1)
        cost[0][0] = 0
        for (k, unit) in units.enumerated() {
            let single = expected(unit)
            let oneBreath = unit.optional
            let pairs = k + 1 < units.count && !unit.optional && !units[k + 1].optional
            let pair = pairs ? single + expected(units[k + 1]) : 0
            let pairLetters = pairs ? unit.letters + units[k + 1].letters : 0
            for j in 0...count where cost[k][j] < infinity {
                let before = cost[k][j]
                if unit.optional, before < cost[k + 1][j] {
                    cost[k + 1][j] = before
                    from[k + 1][j] = (j, .skip)
                }
                guard j < count else { continue }
                // A first attempt: the segment at j, short enough to be the ayah's first words.
                let restarts = !unit.optional && segments[j].duration <= restartShare * single
                for next in (j + 1)...count {
                    let duration = speechBefore[next] - speechBefore[j]
                    // A block far longer than the unit (and the pair) cannot be it (past 2.5 times, its
                    // squared z-score alone outweighs any placement that fits); stop extending.
                    if next > j + 1 && duration > 2.5 * max(single, pair) + 2 { break }
                    let reward = next < count ? pauseReward * Self.pauseBonus(segments[next].start - segments[next - 1].end) : 0
                    if next == j + 1 || duration <= 2.5 * single + 2 {
                        let z = Self.zScore(duration: duration, expected: single, letters: unit.letters)
                        let total = before + z * z / 2 - reward + insidePauses(next - j - 1, letters: unit.letters, oneBreath: oneBreath)
                        if total < cost[k + 1][next] {
                            cost[k + 1][next] = total
                            from[k + 1][next] = (j, .one)
                        }
                    }
                    if restarts, next >= j + 2 {
                        let z = Self.zScore(duration: speechBefore[next] - speechBefore[j + 1], expected: single, letters: unit.letters)
                        let total = before + z * z / 2 - reward + restartCost
                            + insidePauses(next - j - 2, letters: unit.letters, oneBreath: oneBreath)
                        if total < cost[k + 1][next] {
                            cost[k + 1][next] = total
                            from[k + 1][next] = (j, .restart)
                        }
                    }
                    if pairs {
                        let z = Self.zScore(duration: duration, expected: pair, letters: pairLetters)
                        let total = before + z * z / 2 - reward + sharedBlockCost
                            + insidePauses(next - j - 1, letters: pairLetters, oneBreath: false)
                        if total < cost[k + 2][next] {
                            cost[k + 2][next] = total
                            from[k + 2][next] = (j, .shared)
                        }
                    }
                }
            }
        }
        guard cost[units.count][count] < infinity else { return nil }

        var placements: [AyahAlignment.Placement] = []
        var notFound: [Int] = []
        var fit: [AyahAlignment.UnitFit] = []
        var squares = 0.0, placed = 0, anomalies = 0
        var end = count, k = units.count
        while k > 0 {
            let (start, step) = from[k][end]
            let first = start >= 0 && start < count ? segments[start].start : 0, last = end > 0 ? segments[end - 1].end : 0
            switch step {
            case .skip:
                k -= 1
                continue
            case .one, .restart:
                let unit = units[k - 1]
                let restarted = step == .restart
                let inside = end - start - 1 - (restarted ? 1 : 0)
                let duration = speechBefore[end] - speechBefore[restarted ? start + 1 : start]
                let z = Self.zScore(duration: duration, expected: expected(unit), letters: unit.letters)
                fit.append(.init(unit: k - 1, kind: restarted ? .restarted : .one, start: first, end: last, seconds: duration,
                                 expectedSeconds: expected(unit), zScore: z, insidePauses: inside))
                squares += z * z + 2 * insidePauses(inside, letters: unit.letters, oneBreath: unit.optional) + (restarted ? restartCost : 0)
                placed += 1
                anomalies += (restarted ? 1 : 0) + (isOneBreath(unit) ? inside : 0)
                // A restarted ayah starts at its first attempt: the coach hears the stumble too.
                placements.append(.init(unit: k - 1, start: first, end: last))
                k -= 1
            case .shared:
                let (one, two) = (units[k - 2], units[k - 1])
                let letters = one.letters + two.letters
                let z = Self.zScore(duration: speechBefore[end] - speechBefore[start], expected: expected(one) + expected(two), letters: letters)
                fit.append(.init(unit: k - 2, kind: .runTogether, start: first, end: last, seconds: speechBefore[end] - speechBefore[start],
                                 expectedSeconds: expected(one) + expected(two), zScore: z, insidePauses: end - start - 1))
                squares += 2 * z * z + 2 * insidePauses(end - start - 1, letters: letters, oneBreath: false)
                placed += 2
                anomalies += 1
                // Where the second starts inside the block is a guess: it is not given one.
                placements.append(.init(unit: k - 2, start: first, end: last))
                notFound.append(k - 1)
                k -= 2
            }
            end = start
        }
        placements.reverse()
        return Placement(units: placements, notFound: Array(notFound.reversed()), fit: fit.reversed(), cost: cost[units.count][count],
                         misfit: placed == 0 ? 0 : squares / Double(placed), anomalies: anomalies, pace: pace)
    }
}
