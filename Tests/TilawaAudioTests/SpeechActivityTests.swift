import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaAudio

@Suite("Speech activity detector")
struct SpeechActivityTests {
    /// Runs the detector over a synthetic signal given per 20 ms frame as (amplitude, kind).
    private func detect(_ frames: [(Float, Signal)], seed: UInt64 = 7) -> SpeechActivity {
        var detector = SpeechActivityDetector(sampleRate: 48_000)
        var generator = SeededGenerator(seed: seed)
        var phase = 0.0
        var block = [Float](repeating: 0, count: 960)
        for (amplitude, kind) in frames {
            for index in block.indices {
                switch kind {
                case .tone:
                    // A vowel-like 220 Hz tone with a harmonic, inside the speech band.
                    phase += 2 * Double.pi * 220 / 48_000
                    block[index] = amplitude * Float(0.7 * sin(phase) + 0.3 * sin(3 * phase))
                case .noise:
                    block[index] = amplitude * Float.random(in: -1...1, using: &generator)
                case .zero:
                    block[index] = 0
                }
            }
            block.withUnsafeBufferPointer { detector.add($0) }
        }
        return detector.finish(durationSeconds: Double(frames.count) * 0.02)
    }

    private enum Signal { case tone, noise, zero }

    private func seconds(_ value: Double, _ amplitude: Float, _ kind: Signal) -> [(Float, Signal)] {
        Array(repeating: (amplitude, kind), count: Int(value * 50))
    }

    @Test("Digital silence has no speech")
    func silence() {
        let activity = detect(seconds(10, 0, .zero))
        #expect(activity.speechSeconds == 0)
        #expect(activity.leadingSilenceSeconds == 10)
    }

    @Test("Steady noise, quiet or loud, is not speech", arguments: [Float(0.001), 0.01, 0.3])
    func steadyNoise(amplitude: Float) {
        #expect(detect(seconds(10, amplitude, .noise)).speechSeconds == 0)
    }

    @Test("Syllables over a noise floor are found, with the silence around them")
    func syllables() {
        // 3 s of low noise, then 6 s of 200 ms syllables with 100 ms pauses, then 2 s of noise.
        var frames = seconds(3, 0.002, .noise)
        for _ in 0..<20 { frames += seconds(0.2, 0.3, .tone) + seconds(0.1, 0.002, .noise) }
        frames += seconds(2, 0.002, .noise)
        let activity = detect(frames)
        // Short pauses are bridged, so the 6 s block counts as speech (give or take a frame's edge).
        #expect(abs(activity.speechSeconds - 5.9) <= 0.1, "\(activity.speechSeconds)")
        #expect(abs(activity.leadingSilenceSeconds - 3) <= 0.04)
        #expect(abs(activity.trailingSilenceSeconds - 2.1) <= 0.04)
    }

    @Test("A click of 40 ms is not speech")
    func click() {
        let frames = seconds(4, 0.002, .noise) + seconds(0.04, 0.5, .tone) + seconds(4, 0.002, .noise)
        #expect(detect(frames).speechSeconds == 0)
    }

    @Test("A room that gets noisier or quieter half-way does not turn into speech", arguments: [
        (Float(0.001), Float(0.05), 6.0), (0.05, 0.001, 6.0), (0.001, 0.05, 6.5), (0.002, 0.02, 3.3),
    ])
    func noiseStep(before: Float, after: Float, at seconds: Double) {
        let frames = self.seconds(seconds, before, .noise) + self.seconds(12 - seconds, after, .noise)
        // At most the 200 ms evaluation step around the change, far below any speech minimum.
        #expect(detect(frames).speechSeconds <= 0.2)
    }
}

