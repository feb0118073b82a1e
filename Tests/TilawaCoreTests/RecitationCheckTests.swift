import Foundation
import Testing
@testable import TilawaCore

/// A synthetic voice: each of `alphabet` letters has its own sound (a mean row), each said for
/// 3–7 frames with noise; spans of letters separated by pauses.
private struct Voice {
    static let alphabet = 8
    var generator: SplitMix64
    var means: [[Float]] = []

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
        means = (0..<Self.alphabet).map { _ in (0..<SoundFrames.dimensions).map { _ in 1.5 * normal() } }
    }

    mutating func normal() -> Float {
        let u = max(Double(generator.next() >> 11) / Double(1 << 53), 1e-12), v = Double(generator.next() >> 11) / Double(1 << 53)
        return Float((-2 * log(u)).squareRoot() * cos(2 * Double.pi * v))
    }

    mutating func uniform(_ range: Range<Int>) -> Int { range.lowerBound + Int(generator.next() % UInt64(range.count)) }

    /// A recording of `texts`, one span each with 0.5 s of silence before each: its frames,
    /// its speech and the spans.
    mutating func record(_ texts: [[UInt8]]) -> (SoundFrames, [SpeechSegment], [RecitationCheck.Span]) {
        var values: [Float] = [], speech: [SpeechSegment] = [], spans: [RecitationCheck.Span] = []
        var frame = 0
        for text in texts {
            for _ in 0..<25 { values += (0..<SoundFrames.dimensions).map { _ in -3 + 0.1 * normal() }; frame += 1 }
            let start = Double(frame) * SoundFrames.frameSeconds
            for letter in text {
                for _ in 0..<uniform(3..<8) {
                    values += means[Int(letter)].map { $0 + 0.8 * normal() }
                    frame += 1
                }
            }
            let end = Double(frame) * SoundFrames.frameSeconds
            speech.append(SpeechSegment(start: start, end: end))
            spans.append(RecitationCheck.Span(start: start, end: end, letters: text))
        }
        return (SoundFrames(values: values), speech, spans)
    }
}

@Suite("Recitation check")
struct RecitationCheckTests {
    let check: RecitationCheck = {
        var check = RecitationCheck(alphabet: Voice.alphabet)
        check.draws = 16
        return check
    }()

    /// A corpus of 5,000 letters and two passages from it: four ayahs of 30–60 letters each.
    private func corpusAndPassages() -> (corpus: [UInt8], said: [[UInt8]], other: [[UInt8]]) {
        var generator = SplitMix64(seed: 99)
        let corpus = (0..<5000).map { _ in UInt8(generator.next() % UInt64(Voice.alphabet)) }
        let lengths = [30, 60, 45, 50]
        func passage(from start: Int) -> [[UInt8]] {
            var offset = start
            return lengths.map { length -> [UInt8] in
                defer { offset += length }
                return Array(corpus[offset..<(offset + length)])
            }
        }
        return (corpus, passage(from: 100), passage(from: 3000))
    }

    @Test("a recording fits the letters it says far better than random text, and another passage's no better than random")
    func saidAgainstOther() throws {
        let (corpus, said, other) = corpusAndPassages()
        for seed: UInt64 in [1, 2, 3] {
            var voice = Voice(seed: seed)
            let (frames, speech, spans) = voice.record(said)
            let claimed = try #require(check.zScore(frames: frames, speech: speech, spans: spans, corpus: corpus, seed: 5))
            #expect(claimed > 3, "voice \(seed): the passage said scores \(claimed)")
            let wrongSpans = zip(spans, other).map { RecitationCheck.Span(start: $0.start, end: $0.end, letters: $1) }
            let wrong = try #require(check.zScore(frames: frames, speech: speech, spans: wrongSpans, corpus: corpus, seed: 5))
            #expect(wrong < 2, "voice \(seed): another passage scores \(wrong)")
            #expect(claimed > wrong + 2)
        }
    }

    @Test("the same recording, text and seed give the same score")
    func deterministic() throws {
        let (corpus, said, _) = corpusAndPassages()
        var voice = Voice(seed: 4)
        let (frames, speech, spans) = voice.record(said)
        let first = check.zScore(frames: frames, speech: speech, spans: spans, corpus: corpus, seed: 11)
        #expect(first != nil)
        #expect(check.zScore(frames: frames, speech: speech, spans: spans, corpus: corpus, seed: 11) == first)
    }

    @Test("too little to judge is no score: no speech, nothing placed, more letters than frames")
    func tooLittle() {
        let (corpus, said, _) = corpusAndPassages()
        var voice = Voice(seed: 5)
        let (frames, speech, spans) = voice.record(said)
        #expect(check.zScore(frames: frames, speech: [], spans: spans, corpus: corpus, seed: 1) == nil)
        #expect(check.zScore(frames: frames, speech: [SpeechSegment(start: 1e308, end: .infinity)], spans: spans, corpus: corpus, seed: 1) == nil)
        #expect(check.zScore(frames: frames, speech: speech, spans: [], corpus: corpus, seed: 1) == nil)
        #expect(check.zScore(frames: SoundFrames(values: []), speech: speech, spans: spans, corpus: corpus, seed: 1) == nil)
        var crowded = spans
        crowded[0].letters = Array(repeating: 0, count: 2000)
        #expect(check.zScore(frames: frames, speech: speech, spans: crowded, corpus: corpus, seed: 1) == nil)
        // A span past the recording's end, or with no letters, is left out rather than read past the end.
        var outside = spans
        outside.append(RecitationCheck.Span(start: 1e6, end: 1e6 + 1, letters: [1, 2, 3]))
        outside.append(RecitationCheck.Span(start: 0, end: 1, letters: []))
        outside.append(RecitationCheck.Span(start: .nan, end: .infinity, letters: [1]))
        outside.append(RecitationCheck.Span(start: -1e308, end: -1e300, letters: [1]))
        #expect(check.zScore(frames: frames, speech: speech, spans: outside, corpus: corpus, seed: 1)
            == check.zScore(frames: frames, speech: speech, spans: spans, corpus: corpus, seed: 1))
    }
}
