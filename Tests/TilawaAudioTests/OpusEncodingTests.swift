import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaAudio
import TilawaCore

@Suite("Ogg Opus output", .heavy)
struct OpusEncodingTests {
    @Test("Every accepted fixture encodes to a file opusinfo accepts, opusdec decodes to the source duration, at the target bitrate and playback loudness",
          arguments: Fixtures.accepted)
    func encode(_ fixture: Fixture) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let output = scratch.path("out.opus")
        let settings = OpusEncoderSettings()
        let result = try AudioProcessor(encoder: settings).process(path: fixture.path, encodeTo: output)
        let encoded = try #require(result.encoded)
        #expect(scratch.contents() == ["out.opus"], "only the output, no temporary file")

        let info = try await runProcess("opusinfo", [output])
        #expect(info.status == 0, "opusinfo: \(info.stdout)\(info.stderr)")
        #expect(!info.stdout.contains("WARNING") && !info.stdout.contains("ERROR"), "\(info.stdout)")

        let decodedPath = scratch.path("decoded.wav")
        let decoded = try await runProcess("opusdec", ["--quiet", output, decodedPath])
        #expect(decoded.status == 0, "opusdec: \(decoded.stderr)")
        // opusdec applies the OpusHead output gain, so its output is what a player plays.
        let played = try AudioProcessor().process(path: decodedPath)
        #expect(abs(played.analysis.durationSeconds - result.analysis.durationSeconds) <= 0.020,
                "decoded \(played.analysis.durationSeconds) s vs source \(result.analysis.durationSeconds) s")

        let kbps = encoded.bitrate / 1000
        #expect(abs(kbps - 32) <= 32 * 0.15, "bitrate \(kbps) kbit/s")

        let gain = PlaybackGain.decibels(loudnessLUFS: result.analysis.loudnessLUFS, peakDBFS: result.analysis.peakDBFS, settings: settings)
        #expect(abs(encoded.outputGainDB - gain) < 1.0 / 256 + 1e-9)
        #expect(try OggOpusHeader.outputGain(path: output) == PlaybackGain.q78(gain))
        let playedLoudness = try #require(played.analysis.loudnessLUFS)
        let peakLimited = gain < settings.targetLoudnessLUFS - (result.analysis.loudnessLUFS ?? 0) - 0.01
        if peakLimited {
            // The ceiling won: the source peak lifted by the gain sits at −1 dBFS.
            let sourcePeak = try #require(result.analysis.peakDBFS)
            #expect(sourcePeak + encoded.outputGainDB <= settings.peakCeilingDBFS + 0.01)
            #expect(playedLoudness < settings.targetLoudnessLUFS + 0.5)
        } else {
            // Opus at 32 kbit/s moves loudness a little (≈0.3 LU on clean speech, ≈0.6 LU on
            // heavily clipped speech), and the gain is rounded down to 1/256 dB.
            #expect(abs(playedLoudness - settings.targetLoudnessLUFS) <= 0.75, "plays at \(playedLoudness) LUFS")
        }
    }

    @Test("The peak ceiling limits the gain of a quiet recording with a loud peak")
    func peakCeiling() {
        var settings = OpusEncoderSettings()
        settings.targetLoudnessLUFS = -19
        #expect(PlaybackGain.decibels(loudnessLUFS: -30, peakDBFS: -20, settings: settings) == 11)
        #expect(PlaybackGain.decibels(loudnessLUFS: -30, peakDBFS: -5, settings: settings) == 4)
        #expect(PlaybackGain.decibels(loudnessLUFS: -10, peakDBFS: -0.5, settings: settings) == -9)
        #expect(PlaybackGain.decibels(loudnessLUFS: nil, peakDBFS: nil, settings: settings) == 0)
        #expect(PlaybackGain.q78(4) == 1024)
        #expect(PlaybackGain.q78(-0.001) == -1)
        #expect(PlaybackGain.q78(1_000) == Int16.max)
    }

    @Test("Ogg's CRC is CRC-32 with polynomial 0x04C11DB7, initial 0, no reflection")
    func oggCRC() {
        // CRC-32/POSIX of "123456789" is 0x765E7680 after its final inversion; Ogg does not invert.
        #expect(OggOpusHeader.oggCRC(Array("123456789".utf8)) == 0x765E_7680 ^ 0xFFFF_FFFF)
        #expect(OggOpusHeader.oggCRC([]) == 0)
    }

    @Test("A file that cannot be created fails with an I/O error and leaves nothing")
    func unwritableOutput() throws {
        let fixture = try #require(Fixtures.named("speech_mono_s16_48k.wav"))
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(throws: OpusEncoderError.self) {
            try AudioProcessor().process(path: fixture.path, encodeTo: scratch.path("missing-dir/out.opus"))
        }
        #expect(scratch.contents().isEmpty)
    }

    @Test("Settings out of range are refused before any file is created", arguments: [
        (bitrate: 5_000, complexity: 10), (bitrate: 600_000, complexity: 10), (bitrate: 32_000, complexity: 11),
    ])
    func invalidSettings(_ values: (bitrate: Int, complexity: Int)) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var settings = OpusEncoderSettings()
        settings.bitrate = values.bitrate
        settings.complexity = values.complexity
        #expect(throws: OpusEncoderError.self) { try OpusFileEncoder(path: scratch.path("x.opus"), settings: settings) }
        #expect(scratch.contents().isEmpty)
    }
}

@Suite("The encoder thread", .heavy)
struct EncoderThreadTests {
    @Test("Blocks of any size reach the encoder whole and in order: the file holds exactly the samples fed")
    func oddBlockSizes() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let output = scratch.path("out.opus")
        // Sizes around the 4,800-sample chunk and the 8-chunk queue, over 2.5 s.
        let sizes = [1, 7, 1_023, 4_799, 4_800, 4_801, 9_600, 38_401, 48_000, 3]
        let total = 120_000
        let tone = (0..<total).map { Float(0.4 * sin(2 * Double.pi * 330 * Double($0) / 48_000)) }
        let thread = EncoderThread(encoder: try OpusFileEncoder(path: output, settings: OpusEncoderSettings()))
        thread.start()
        var start = 0, turn = 0
        try tone.withUnsafeBufferPointer { buffer in
            while start < total {
                let end = min(total, start + sizes[turn % sizes.count])
                try thread.write(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end
                turn += 1
            }
        }
        try thread.finish()

        var decoded: [Float] = []
        let summary = try AudioDecoder(path: output).decode { decoded.append(contentsOf: $0) }
        #expect(summary.samples == total)
        // In order: the decoded tone lines up with the source (Opus is lossy, so compare the
        // correlation over the middle, away from the codec's start-up).
        let middle = 24_000..<96_000
        let dot = zip(decoded[middle], tone[middle]).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
        let energy = tone[middle].reduce(0.0) { $0 + Double($1) * Double($1) }
        #expect(dot / energy > 0.9, "correlation \(dot / energy)")
    }

}
