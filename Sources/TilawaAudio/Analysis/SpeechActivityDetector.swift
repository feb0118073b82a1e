import Foundation
import TilawaCore

/// Finds where someone is speaking, from band-limited frame energy against an adaptive noise floor.
///
/// Streaming part: the signal is band-passed to the speech band (100 Hz–4 kHz, which
/// ignores rumble, DC and hiss) and reduced to one energy value per 20 ms frame — 50
/// floats a second, the only state that grows, bounded by the maximum duration.
/// Decision part, at the end: a frame is speech when its energy clears both a global
/// threshold (the recording's own noise floor, its 10th percentile, + 9 dB; at most 35 dB
/// under its loud frames; never below −65 dBFS) and the local floors of the 3 s before and
/// the 3 s after it (+ 9 dB each), so a fan switched on half-way is not speech.
/// Gaps up to 300 ms between speech frames are bridged (pauses between words) and
/// bursts under 100 ms dropped (clicks, taps; a spoken syllable lasts longer).
struct SpeechActivityDetector {
    static let frameSeconds = 0.02
    static let gapBridgeFrames = 15
    static let minimumBurstFrames = 5
    static let floorMarginDB: Float = 9
    static let dynamicRangeDB: Float = 35
    static let absoluteThresholdDB: Float = -65
    static let localWindowFrames = 150

    private let frameLength: Int
    private var highPass: Biquad
    private var lowPass: Biquad
    private var accumulated: Double = 0
    private var filled = 0
    private(set) var energies: [Float] = []

    init(sampleRate: Int) {
        frameLength = Int(Double(sampleRate) * Self.frameSeconds)
        highPass = Biquad.highPass(cutoff: 100, sampleRate: Double(sampleRate))
        lowPass = Biquad.lowPass(cutoff: 4000, sampleRate: Double(sampleRate))
    }

    mutating func add(_ block: UnsafeBufferPointer<Float>) {
        for sample in block {
            let filtered = lowPass.process(highPass.process(Double(sample)))
            accumulated += filtered * filtered
            filled += 1
            if filled == frameLength { closeFrame() }
        }
    }

    private mutating func closeFrame() {
        let meanSquare = accumulated / Double(max(filled, 1))
        energies.append(Float(10 * log10(meanSquare + 1e-12)))
        accumulated = 0
        filled = 0
    }

    /// Decides speech frames and summarises them for a recording of `durationSeconds`.
    mutating func finish(durationSeconds: Double) -> SpeechActivity {
        // A last partial frame counts when it is at least half a frame long.
        if filled * 2 >= frameLength { closeFrame() }
        let active = Self.classify(energies)
        guard let first = active.firstIndex(of: true), let last = active.lastIndex(of: true) else {
            return SpeechActivity(speechSeconds: 0, leadingSilenceSeconds: durationSeconds, trailingSilenceSeconds: durationSeconds)
        }
        let speechFrames = active.lazy.filter { $0 }.count
        let speech = min(Double(speechFrames) * Self.frameSeconds, durationSeconds)
        let leading = Double(first) * Self.frameSeconds
        let trailing = max(0, durationSeconds - Double(last + 1) * Self.frameSeconds)
        return SpeechActivity(speechSeconds: speech, leadingSilenceSeconds: leading, trailingSilenceSeconds: trailing,
                              segments: Self.segments(active, durationSeconds: durationSeconds))
    }

    /// The runs of speech frames as segments in seconds (the last one ends at `durationSeconds` at the latest).
    static func segments(_ active: [Bool], durationSeconds: Double) -> [SpeechSegment] {
        var segments: [SpeechSegment] = []
        var index = 0
        while index < active.count {
            guard active[index] else { index += 1; continue }
            var end = index
            while end < active.count && active[end] { end += 1 }
            segments.append(SpeechSegment(start: Double(index) * frameSeconds, end: min(Double(end) * frameSeconds, durationSeconds)))
            index = end
        }
        return segments
    }

    /// Marks each frame as speech or not (exposed for tests of the decision rule).
    static func classify(_ energies: [Float]) -> [Bool] {
        guard !energies.isEmpty else { return [] }
        let sorted = energies.sorted()
        let floor = max(percentile(sorted, 0.10), -100)
        let loud = percentile(sorted, 0.95)
        let global = max(floor + floorMarginDB, loud - dynamicRangeDB, absoluteThresholdDB)

        // Local floors, evaluated every 200 ms: the noise floor of the 3 s before a frame and of
        // the 3 s from it on. Speech stands above both; a step up in steady noise stands
        // above the floor before it but not the one after, a step down the reverse.
        let hop = 10
        let window = localWindowFrames
        let minimumSide = 50
        var past: [Float?] = [], future: [Float?] = []
        var before = SortedWindow(capacity: window), after = SortedWindow(capacity: window)
        var start = 0
        while start < energies.count {
            before.slide(to: max(0, start - window)..<start, over: energies)
            after.slide(to: start..<min(energies.count, start + window), over: energies)
            past.append(before.range.count >= minimumSide ? percentile(before.values, 0.10) : nil)
            future.append(after.range.count >= minimumSide ? percentile(after.values, 0.10) : nil)
            start += hop
        }

        var active = energies.enumerated().map { index, energy in
            guard energy > global else { return false }
            let slot = index / hop
            if let floor = past[slot], energy <= floor + floorMarginDB { return false }
            if let floor = future[slot], energy <= floor + floorMarginDB { return false }
            return true
        }
        bridgeGaps(&active, upTo: gapBridgeFrames)
        dropBursts(&active, shorterThan: minimumBurstFrames)
        return active
    }

    private static func bridgeGaps(_ active: inout [Bool], upTo maximumGap: Int) {
        var lastActive: Int? = nil
        for index in active.indices where active[index] {
            if let previous = lastActive, index - previous > 1, index - previous - 1 <= maximumGap {
                for gap in (previous + 1)..<index { active[gap] = true }
            }
            lastActive = index
        }
    }

    private static func dropBursts(_ active: inout [Bool], shorterThan minimum: Int) {
        var index = 0
        while index < active.count {
            guard active[index] else { index += 1; continue }
            var end = index
            while end < active.count && active[end] { end += 1 }
            if end - index < minimum {
                for position in index..<end { active[position] = false }
            }
            index = end
        }
    }

    private static func percentile(_ sorted: [Float], _ fraction: Double) -> Float {
        guard !sorted.isEmpty else { return -120 }
        let position = Int((Double(sorted.count - 1) * fraction).rounded())
        return sorted[position]
    }
}
