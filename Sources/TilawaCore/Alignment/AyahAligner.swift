import Foundation

/// Places a passage's ayahs in a recording from its pauses alone: which pauses end an ayah.
///
/// Students pause inside long ayahs too, so the N − 1 longest pauses are not the
/// boundaries. Instead, dynamic programming over the pauses between the speech segments
/// chooses the boundaries whose blocks of speech best match each unit's expected speech
/// duration — its share of the recording's speech by letter count — with a small reward
/// for ending a unit at a longer pause, and a cost for more pauses inside a unit than a
/// breath every `breathSeconds` of speech explains. Optional units (the isti'adha, a basmala
/// before a surah) may be left out. Two ayahs recited without a pause the detector can see
/// may share one block, at a cost, their boundary placed in proportion to their letters.
///
/// The pace (seconds of speech a letter) depends on which optional units were recited, so
/// the placement starts from each hypothesis (none, each one, all), re-estimates the pace
/// from the units it found until it settles, and keeps the cheapest.
///
/// A recording of another passage usually fits badly: when the best placement's misfit
/// (the mean over units of the squared z-score of its log duration ratio, plus the
/// unexplained pauses and shared blocks) exceeds `misfitLimit`, nothing is placed and the
/// refusal says so. The constants were calibrated with `make bench-align`.
public struct AyahAligner: Sendable {
    /// Above this misfit the alignment is refused as `poor_fit`.
    public var misfitLimit: Double
    /// The weight of the reward for a boundary at a longer pause.
    public var pauseReward: Double
    /// The cost of two ayahs sharing one block of speech (no pause seen between them).
    public var sharedBlockCost: Double
    /// Seconds of speech a pause inside a unit is expected every (a breath).
    public var breathSeconds: Double
    /// The weight of each squared pause inside a unit beyond those breaths.
    public var extraPauseCost: Double
    /// Plausible seconds of speech per letter over a whole recitation, from a quick reading
    /// (hadr) to a slow one (tartil) with long madd.
    public var secondsPerLetter: ClosedRange<Double>

    /// An aligner with the calibrated defaults.
    public init(misfitLimit: Double = 0.6, pauseReward: Double = 0.3, sharedBlockCost: Double = 3, breathSeconds: Double = 4,
                extraPauseCost: Double = 1, secondsPerLetter: ClosedRange<Double> = 0.03...0.6) {
        self.misfitLimit = misfitLimit
        self.pauseReward = pauseReward
        self.sharedBlockCost = sharedBlockCost
        self.breathSeconds = breathSeconds
        self.extraPauseCost = extraPauseCost
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
                if foundLetters == letters { break }
                letters = foundLetters
            }
            if let settled, settled.cost < best?.cost ?? .infinity { best = settled }
        }
        guard let best else { return .refused(.poorFit) }
        guard best.misfit <= misfitLimit else { return .refused(.poorFit, misfit: best.misfit) }
        return AyahAlignment(placements: best.units, misfit: best.misfit)
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

    /// The cost of `pauses` pauses inside a unit of `expected` seconds of speech beyond its breaths.
    private func extraPauses(_ pauses: Int, expected: Double) -> Double {
        let extra = max(0, Double(pauses) - expected / breathSeconds)
        return extraPauseCost * extra * extra
    }

    /// One placement at a fixed pace: the units found, the total cost the programme minimised,
    /// and the misfit reported.
    private struct Placement {
        var units: [AyahAlignment.Placement]
        var cost: Double
        var misfit: Double
    }

    /// The best placement at a fixed pace, or nil when no placement covers every segment.
    private func place(segments: [SpeechSegment], speechBefore: [Double], units: [AlignmentUnit],
                       secondsPerLetter pace: Double) -> Placement? {
        let count = segments.count
        let infinity = Double.infinity
        func expected(_ unit: AlignmentUnit) -> Double { pace * Double(Self.weight(unit)) }
        // cost[k][j]: the best cost of units 0..<k covering segments 0..<j; from[k][j] the j
        // before the last step and how many units it placed (0: an optional unit left out,
        // 1: one unit, 2: two ayahs sharing a block).
        var cost = Array(repeating: Array(repeating: infinity, count: count + 1), count: units.count + 1)
        var from = Array(repeating: Array(repeating: (start: -1, step: 0), count: count + 1), count: units.count + 1)
        cost[0][0] = 0
        for (k, unit) in units.enumerated() {
            let single = expected(unit)
            let pairs = k + 1 < units.count && !unit.optional && !units[k + 1].optional
            let pair = pairs ? single + expected(units[k + 1]) : 0
            for j in 0...count where cost[k][j] < infinity {
                let before = cost[k][j]
                if unit.optional, before < cost[k + 1][j] {
                    cost[k + 1][j] = before
                    from[k + 1][j] = (j, 0)
                }
                guard j < count else { continue }
                for next in (j + 1)...count {
                    let duration = speechBefore[next] - speechBefore[j]
                    // A block far longer than the unit (and the pair) cannot be it (past 2.5 times, its
                    // squared z-score alone outweighs any placement that fits); stop extending.
                    if next > j + 1 && duration > 2.5 * max(single, pair) + 2 { break }
                    let reward = next < count ? pauseReward * Self.pauseBonus(segments[next].start - segments[next - 1].end) : 0
                    if next == j + 1 || duration <= 2.5 * single + 2 {
                        let z = Self.zScore(duration: duration, expected: single, letters: unit.letters)
                        let total = before + z * z / 2 - reward + extraPauses(next - j - 1, expected: single)
                        if total < cost[k + 1][next] {
                            cost[k + 1][next] = total
                            from[k + 1][next] = (j, 1)
                        }
                    }
                    if pairs {
                        let z = Self.zScore(duration: duration, expected: pair, letters: unit.letters + units[k + 1].letters)
                        let total = before + z * z / 2 - reward + sharedBlockCost + extraPauses(next - j - 1, expected: pair)
                        if total < cost[k + 2][next] {
                            cost[k + 2][next] = total
                            from[k + 2][next] = (j, 2)
                        }
                    }
                }
            }
        }
        guard cost[units.count][count] < infinity else { return nil }

        var placements: [AyahAlignment.Placement] = []
        var squares = 0.0, placed = 0
        var end = count, k = units.count
        while k > 0 {
            let (start, step) = from[k][end]
            guard step > 0 else { k -= 1; continue }
            let duration = speechBefore[end] - speechBefore[start]
            let first = segments[start].start, last = segments[end - 1].end
            switch step {
            case 1:
                let unit = units[k - 1]
                let z = Self.zScore(duration: duration, expected: expected(unit), letters: unit.letters)
                squares += z * z + 2 * extraPauses(end - start - 1, expected: expected(unit))
                placed += 1
                placements.append(.init(unit: k - 1, start: first, end: last))
            case 2:
                let (one, two) = (units[k - 2], units[k - 1])
                let (a, b) = (expected(one), expected(two))
                let z = Self.zScore(duration: duration, expected: a + b, letters: one.letters + two.letters)
                squares += 2 * z * z + sharedBlockCost + 2 * extraPauses(end - start - 1, expected: a + b)
                placed += 2
                let boundary = first + (last - first) * a / (a + b)
                placements.append(.init(unit: k - 1, start: boundary, end: last))
                placements.append(.init(unit: k - 2, start: first, end: boundary))
            default:
                break
            }
            k -= max(step, 1)
            end = start
        }
        placements.reverse()
        return Placement(units: placements, cost: cost[units.count][count], misfit: placed == 0 ? 0 : squares / Double(placed))
    }
}
