import Foundation
import Testing
import TilawaCore
import TilawaTestSupport
@testable import TilawaAudio

@Suite("Sound frames")
struct SoundFrameTests {
    /// The frames of `seconds` of a tone at `hertz`, fed in blocks of `block` samples (not a
    /// multiple of a frame, so frames straddle blocks).
    private func frames(hertz: Double, seconds: Double, block: Int = 700) throws -> SoundFrames {
        let builder = try #require(SoundFrameBuilder())
        let samples = (0..<Int(seconds * 48_000)).map { Float(0.3 * sin(2 * Double.pi * hertz * Double($0) / 48_000)) }
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + block)
            samples[start..<end].withUnsafeBufferPointer { builder.add($0) }
            start = end
        }
        return builder.finish()
    }

    @Test("one row of 8 a 20 ms frame, a last partial frame counted from half a frame on")
    func rowCount() throws {
        #expect(try frames(hertz: 440, seconds: 1).count == 50)
        #expect(try frames(hertz: 440, seconds: 1.012).count == 51)
        #expect(try frames(hertz: 440, seconds: 1.008).count == 50)
        #expect(try frames(hertz: 440, seconds: 1).values.count == 50 * SoundFrames.dimensions)
    }

    @Test("a tone's energy is in its band: the band's share is near all of it, the others far under")
    func toneInItsBand() throws {
        // 450 Hz is in the second band (300–600 Hz), 5 kHz in the sixth (3500–6000 Hz).
        for (hertz, band) in [(450.0, 1), (5000.0, 5)] {
            let sound = try frames(hertz: hertz, seconds: 0.5)
            let row = Array(sound.values[(10 * SoundFrames.dimensions)..<(11 * SoundFrames.dimensions)])
            #expect(abs(row[band]) < 0.05, "band \(band) of \(hertz) Hz: \(row)")
            for other in 0..<7 where other != band {
                #expect(row[other] < row[band] - 4, "band \(other) of \(hertz) Hz: \(row)")
            }
            // The loudness of a 0.3 sine under a 960-sample Hann window: (0.3 × 960 / 4)² × 2 in one bin pair, about ln(1e4).
            #expect(row[7] > 8 && row[7] < 10.5, "\(row[7])")
        }
    }

    @Test("silence gives finite rows, never NaN")
    func silence() throws {
        let sound = try frames(hertz: 0, seconds: 0.2)
        #expect(sound.count == 10)
        #expect(sound.values.allSatisfy { $0.isFinite })
    }

    @Test("the encode pass hears the same frames as a judging pass asked for them")
    func bothPasses() throws {
        let fixture = Fixtures.directory.appendingPathComponent("speech_mono_s16_48k.wav").path
        let judged = try AudioProcessor().process(path: fixture, soundFrames: true)
        let scratch = try ScratchDirectory()
        let encoded = try AudioProcessor().encode(path: fixture, to: scratch.path("out.opus"), analysis: judged.analysis, soundFrames: true)
        let sound = try #require(judged.soundFrames)
        #expect(sound.count == Int((judged.analysis.durationSeconds / SoundFrames.frameSeconds).rounded()))
        #expect(encoded.sound == sound)
        #expect(try AudioProcessor().process(path: fixture).soundFrames == nil)
    }
}
