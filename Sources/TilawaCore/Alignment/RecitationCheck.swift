/// Does a recording say the letters of the passage its pauses were placed on?
///
/// The ayah aligner places ayahs by pauses alone, so another passage whose pauses fit at a
/// human pace gets markers. This asks the sound instead, with no model trained elsewhere: each
/// placed span's speech frames (`SoundFrames`, normalised over the recording's speech) are
/// split among the span's letters in order by dynamic programming (each letter 1 to 1.5× its
/// share of frames), one diagonal Gaussian a letter is fitted on this recording alone (three
/// rounds of split and refit, so it adapts to the voice and the microphone), and the fit is
/// the mean log-likelihood a frame. The same is done with `draws` stretches of other text of
/// the same letter counts, drawn from `corpus` by a seeded generator; the result is the claimed
/// text's z-score among them. The claimed passage fits its own letters far better than random
/// text (a median z about 5 on the bench's voices); another passage scores about N(0, 1).
///
/// Cost: each round is one pass of `alphabet` × `dimensions` multiply-adds a frame and a
/// dynamic programme of frames × letters a span (the best split point comes from a sliding
/// maximum, not a search); up to 65 fits of 3 rounds. About 0.06 s of CPU for an 85-second
/// recording, most of it the split.
public struct RecitationCheck: Sendable {
    /// One placed stretch of the recording and the letters said in it.
    public struct Span: Sendable, Hashable {
        public var start: Double
        public var end: Double
        /// The letters as symbols `0..<alphabet`.
        public var letters: [UInt8]

        public init(start: Double, end: Double, letters: [UInt8]) {
            self.start = start
            self.end = end
            self.letters = letters
        }
    }

    /// The number of distinct letter symbols.
    public var alphabet: Int
    /// Random texts the claimed one is compared with.
    public var draws = 64
    /// Rounds of split and refit.
    public var rounds = 3
    /// The longest a letter may last, as a multiple of its share of its span's frames.
    public var slack = 1.5

    public init(alphabet: Int) {
        self.alphabet = alphabet
    }

    /// The claimed letters' z-score among random stretches of `corpus`; nil when there is too
    /// little to judge (no speech in the spans, or a span with fewer frames than letters).
    /// Given `ends` (where each ayah of the corpus ends, as offsets), every stretch drawn ends
    /// where an ayah ends, as a placed ayah does: an ayah's last letters are drawn out and
    /// rhyme with the next one's (ـِينَ, ـُونَ), so any real passage fits a recording's ayah
    /// endings better than text cut anywhere, and the comparison must share that.
    /// Draws are made 16 at a time; once the score so far lies outside `settledOutside` (a
    /// margin around the caller's bar) it is returned without the rest: a recitation of its
    /// passage scores far above any bar and most other passages far under, so most checks cost
    /// a quarter of `draws`.
    /// The same inputs and `seed` always give the same answer.
    public func zScore(frames: SoundFrames, speech: [SpeechSegment], spans: [Span], corpus: [UInt8], ends: [Int] = [],
                       seed: UInt64, settledOutside undecided: ClosedRange<Double>? = nil) -> Double? {
        guard let model = Model(frames: frames, speech: speech, spans: spans, alphabet: alphabet) else { return nil }
        let texts = model.spanIndices.map { spans[$0].letters }
        guard let claimed = model.fit(texts, rounds: rounds, slack: slack) else { return nil }
        var generator = SplitMix64(seed: seed)
        var null: [Double] = []
        // The ayah ends each span's stretches may end at: those with room for its letters.
        let fitting = texts.map { letters in ends.filter { $0 >= letters.count && $0 <= corpus.count } }
        for _ in 0..<draws {
            let random = zip(texts, fitting).map { letters, fitting -> [UInt8] in
                guard corpus.count > letters.count else { return letters }
                if !fitting.isEmpty {
                    let end = fitting[Int(generator.next() % UInt64(fitting.count))]
                    return Array(corpus[(end - letters.count)..<end])
                }
                let start = Int(generator.next() % UInt64(corpus.count - letters.count))
                return Array(corpus[start..<(start + letters.count)])
            }
            if let value = model.fit(random, rounds: rounds, slack: slack) { null.append(value) }
            if let undecided, null.count % 16 == 0, let score = Self.score(claimed, among: null), !undecided.contains(score) {
                return score
            }
        }
        return Self.score(claimed, among: null)
    }

    private static func score(_ claimed: Double, among null: [Double]) -> Double? {
        guard null.count >= 2 else { return nil }
        let mean = null.reduce(0, +) / Double(null.count)
        let variance = null.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(null.count)
        return (claimed - mean) / (variance.squareRoot() + 1e-9)
    }
}

/// The normalised speech frames of each span, and the fitting.
private struct Model {
    static let dimensions = SoundFrames.dimensions
    let alphabet: Int
    /// Each kept span's frames, rows of `dimensions`, normalised.
    var rows: [[Float]] = []
    /// Which of the given spans each kept one is.
    var spanIndices: [Int] = []
    var used = 0
    /// The placed frames' mean, and one over their variance (+ 0.001), by dimension.
    var overall: [Double] = []
    var inverse: [Float] = []

    init?(frames: SoundFrames, speech: [SpeechSegment], spans: [RecitationCheck.Span], alphabet: Int) {
        self.alphabet = alphabet
        let dimensions = Self.dimensions
        let count = frames.count
        guard count > 0 else { return nil }
        var isSpeech = [Bool](repeating: false, count: count)
        for segment in speech {
            let first = Self.frame(at: segment.start, count: count), end = Self.frame(at: segment.end, count: count)
            if first < end { for index in first..<end { isSpeech[index] = true } }
        }
        // Normalise each dimension over the recording's speech.
        var mean = [Double](repeating: 0, count: dimensions), square = mean
        var speechCount = 0
        for index in 0..<count where isSpeech[index] {
            speechCount += 1
            for dimension in 0..<dimensions {
                let value = Double(frames.values[index * dimensions + dimension])
                mean[dimension] += value
                square[dimension] += value * value
            }
        }
        guard speechCount > 0 else { return nil }
        var scale = mean
        for dimension in 0..<dimensions {
            mean[dimension] /= Double(speechCount)
            let variance = max(0, square[dimension] / Double(speechCount) - mean[dimension] * mean[dimension])
            scale[dimension] = 1 / (variance.squareRoot() + 1e-6)
        }
        for (position, span) in spans.enumerated() where !span.letters.isEmpty {
            let first = Self.frame(at: span.start, count: count), end = Self.frame(at: span.end, count: count)
            guard first < end else { continue }
            var row: [Float] = []
            for index in first..<end where isSpeech[index] {
                for dimension in 0..<dimensions {
                    row.append(Float((Double(frames.values[index * dimensions + dimension]) - mean[dimension]) * scale[dimension]))
                }
            }
            guard !row.isEmpty else { continue }
            rows.append(row)
            spanIndices.append(position)
            used += row.count / dimensions
        }
        guard used > 0 else { return nil }
        // The placed frames' mean and variance (about 0 and 1 after normalising over all the
        // speech, but not exactly): the same for every text fitted, so computed once.
        var variance = [Double](repeating: 0, count: dimensions), total = variance
        for row in rows { for (offset, value) in row.enumerated() { total[offset % dimensions] += Double(value) } }
        overall = total.map { $0 / Double(used) }
        for row in rows {
            for (offset, value) in row.enumerated() {
                let difference = Double(value) - overall[offset % dimensions]
                variance[offset % dimensions] += difference * difference
            }
        }
        inverse = variance.map { Float(1 / ($0 / Double(used) + 1e-3)) }
    }

    /// The first frame that starts at or after `seconds`, within `0...count` (a time from a
    /// stored row that is negative, past the end or not a number reads as an end).
    static func frame(at seconds: Double, count: Int) -> Int {
        guard seconds.isFinite else { return seconds == -.infinity ? 0 : count }
        return Int(min(max((seconds / SoundFrames.frameSeconds).rounded(.up), 0), Double(count)))
    }

    /// The mean log-likelihood a frame of the best split of each span among `texts` under
    /// per-letter Gaussians fitted to this recording; nil when a span cannot hold its letters.
    func fit(_ texts: [[UInt8]], rounds: Int, slack: Double) -> Double? {
        let dimensions = Self.dimensions
        // Start from letters spread evenly over each span's frames.
        var labels: [[UInt8]] = zip(rows, texts).map { row, letters in
            let frames = row.count / dimensions
            return (0..<frames).map { letters[$0 * letters.count / frames] }
        }
        for (row, letters) in zip(rows, texts) {
            let frames = row.count / dimensions
            let longest = max(2, Int((slack * Double(frames) / Double(letters.count)).rounded(.up)))
            if longest * letters.count < frames || letters.count > frames { return nil }
        }
        var score = 0.0
        var likelihood: [Float] = []
        let splitter = LetterSplitter()
        for _ in 0..<rounds {
            // Each letter's mean from the frames given to it (the overall mean when it has few).
            var sums = [Double](repeating: 0, count: alphabet * dimensions)
            var counts = [Int](repeating: 0, count: alphabet)
            for (row, labelled) in zip(rows, labels) {
                for (frame, letter) in labelled.enumerated() {
                    counts[Int(letter)] += 1
                    for dimension in 0..<dimensions { sums[Int(letter) * dimensions + dimension] += Double(row[frame * dimensions + dimension]) }
                }
            }
            // With a shared diagonal variance, −½Σ(x−μ)²/σ² = x·(μ/σ²) − ½Σμ²/σ² − ½Σx²/σ²; the
            // last term is the same for every split of the same frames, so it is left out.
            var weights = [Float](repeating: 0, count: alphabet * dimensions)
            var offsets = [Float](repeating: 0, count: alphabet)
            for letter in 0..<alphabet {
                var half: Float = 0
                for dimension in 0..<dimensions {
                    let mean = counts[letter] > 3 ? Float(sums[letter * dimensions + dimension] / Double(counts[letter])) : Float(overall[dimension])
                    weights[letter * dimensions + dimension] = mean * inverse[dimension]
                    half += 0.5 * mean * mean * inverse[dimension]
                }
                offsets[letter] = -half
            }
            score = 0
            for (index, row) in rows.enumerated() {
                let frames = row.count / dimensions
                // Only the letters this span's text has are ever read.
                var present = [Bool](repeating: false, count: alphabet)
                for letter in texts[index] { present[Int(letter)] = true }
                let symbols = (0..<alphabet).filter { present[$0] }
                if likelihood.count < frames * alphabet { likelihood = [Float](repeating: 0, count: frames * alphabet) }
                row.withUnsafeBufferPointer { x in
                    weights.withUnsafeBufferPointer { w in
                        likelihood.withUnsafeMutableBufferPointer { output in
                            for frame in 0..<frames {
                                let base = frame * dimensions
                                for letter in symbols {
                                    var sum = offsets[letter]
                                    let weight = letter * dimensions
                                    for dimension in 0..<dimensions { sum += x[base + dimension] * w[weight + dimension] }
                                    output[frame * alphabet + letter] = sum
                                }
                            }
                        }
                    }
                }
                let letters = texts[index]
                let longest = max(2, Int((slack * Double(frames) / Double(letters.count)).rounded(.up)))
                let found = likelihood.withUnsafeBufferPointer {
                    splitter.split($0, frames: frames, alphabet: alphabet, letters: letters, longest: longest, labels: &labels[index])
                }
                guard let best = found else { return nil }
                score += best
            }
        }
        return score / Double(used)
    }
}

/// The best split of a span's frames among its letters in order, each letter 1…`longest`
/// frames: `best[i][t]` (letters up to i end at frame t) is the sum of letter i's log-likelihood
/// over its frames plus `best[i−1][u]` for the best u in `t−longest..<t` — which, with
/// cumulative sums, is a sliding-window maximum over u (a monotonic queue), so the programme
/// costs frames × letters, not frames × letters × `longest`.
///
/// Its buffers are raw, grown when a span needs more and reused for every span and round of
/// one check (the inner loop is most of the check's time). Not `Sendable`: one check owns it.
private final class LetterSplitter {
    private var capacity = 0
    private var backCapacity = 0
    private var previous = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    private var current = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    private var cumulative = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    private var candidates = UnsafeMutablePointer<Double>.allocate(capacity: 1)
    private var queue = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    private var back = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    deinit {
        for buffer in [previous, current, cumulative, candidates] { buffer.deallocate() }
        queue.deallocate()
        back.deallocate()
    }

    private func reserve(width: Int, cells: Int) {
        if width > capacity {
            for buffer in [previous, current, cumulative, candidates] { buffer.deallocate() }
            queue.deallocate()
            capacity = width
            previous = .allocate(capacity: width)
            current = .allocate(capacity: width)
            cumulative = .allocate(capacity: width)
            candidates = .allocate(capacity: width)
            queue = .allocate(capacity: width)
        }
        if cells > backCapacity {
            back.deallocate()
            backCapacity = cells
            back = .allocate(capacity: cells)
        }
    }

    func split(_ likelihood: UnsafeBufferPointer<Float>, frames: Int, alphabet: Int, letters: [UInt8], longest: Int,
               labels: inout [UInt8]) -> Double? {
        let impossible = -Double.greatestFiniteMagnitude
        let width = frames + 1
        reserve(width: width, cells: letters.count * width)
        let previous = previous, current = current, cumulative = cumulative, candidates = candidates, queue = queue, back = back
        previous.update(repeating: impossible, count: width)
        previous[0] = 0
        cumulative[0] = 0
        var best = previous, next = current
        for (position, letter) in letters.enumerated() {
            let symbol = Int(letter)
            for frame in 0..<frames { cumulative[frame + 1] = cumulative[frame] + Double(likelihood[frame * alphabet + symbol]) }
            for index in 0..<width {
                candidates[index] = best[index] == impossible ? impossible : best[index] - cumulative[index]
            }
            let row = back + position * width
            var head = 0, tail = 0
            next[0] = impossible
            for end in 1..<width {
                // u = end − 1 enters the window; u < end − longest leaves it.
                let entering = end - 1
                while tail > head, candidates[queue[tail - 1]] <= candidates[entering] { tail -= 1 }
                queue[tail] = entering
                tail += 1
                while queue[head] < end - longest { head += 1 }
                let start = queue[head]
                if candidates[start] == impossible {
                    next[end] = impossible
                } else {
                    next[end] = candidates[start] + cumulative[end]
                    row[end] = Int32(start)
                }
            }
            swap(&best, &next)
        }
        guard best[frames] != impossible else { return nil }
        var end = frames
        for position in stride(from: letters.count - 1, through: 0, by: -1) {
            let start = Int(back[position * width + end])
            for frame in start..<end { labels[frame] = letters[position] }
            end = start
        }
        return best[frames]
    }
}

/// A small, seeded, portable generator (Steele, Lea and Flood's SplitMix64): the same seed
/// draws the same texts on every machine and Swift version.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
