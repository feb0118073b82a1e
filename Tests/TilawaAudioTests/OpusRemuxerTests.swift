import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaAudio
import TilawaCore

@Suite("The same Opus packets in MP4 and CAF", .heavy)
struct OpusRemuxerTests {
    /// Every sample `path` decodes to (mono 48 kHz, through FFmpeg's decoder, header gain applied).
    static func samples(_ path: String) throws -> [Float] {
        var all: [Float] = []
        _ = try AudioDecoder(path: path).decode { all.append(contentsOf: $0) }
        return all
    }

    /// The body of the first box or chunk named `name` (4 bytes) after `after`.
    static func find(_ name: String, in data: Data) -> Int? {
        data.range(of: Data(name.utf8)).map(\.upperBound)
    }

    static func be<T: FixedWidthInteger>(_ data: Data, _ offset: Int, _: T.Type) -> T {
        data[offset..<(offset + MemoryLayout<T>.size)].reduce(T(0)) { $0 << 8 | T($1) }
    }

    /// An ffprobe JSON member, which is a number or a string depending on the field.
    static func int(_ value: Any?) -> Int? {
        (value as? Int) ?? (value as? String).flatMap { Int($0) }
    }

    /// A fixture encoded to Ogg Opus in a scratch folder and remuxed to `container`.
    struct Remuxed {
        let scratch: ScratchDirectory
        let ogg: String
        let output: String
        let summary: OpusRemuxer.Summary
    }

    static func remuxed(_ name: String, to container: OpusContainer) throws -> Remuxed {
        let fixture = try #require(Fixtures.named(name))
        let scratch = try ScratchDirectory()
        let ogg = scratch.path("r.opus"), output = scratch.path("r.\(container.fileExtension)")
        _ = try AudioProcessor().process(path: fixture.path, encodeTo: ogg, policy: .always)
        return Remuxed(scratch: scratch, ogg: ogg, output: output, summary: try OpusRemuxer.remux(oggPath: ogg, to: output, container: container))
    }

    static let cases = ["speech_mono_s16_48k.wav", "speech.flac", "speech_leading_silence_20s.wav"]

    @Test("MP4: ffprobe reads it, the decode is the Ogg's sample for sample over the recording, the gain travels in dOps, loudness the same", arguments: cases)
    func mp4(_ name: String) async throws {
        let made = try Self.remuxed(name, to: .mp4)
        defer { made.scratch.remove() }
        let (ogg, mp4, summary) = (made.ogg, made.output, made.summary)
        #expect(Set(made.scratch.contents()) == ["r.opus", "r.m4a"], "no temporary file left")

        let probe = try await runProcess("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,duration_ts,nb_frames", "-of", "json", mp4])
        #expect(probe.status == 0, "\(probe.stderr)")
        let stream = try #require(((try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])?["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == "opus")
        #expect(Self.int(stream["nb_frames"]) == summary.packets)

        let fromOgg = try Self.samples(ogg), fromMP4 = try Self.samples(mp4)
        // The edit list ends where the Ogg does (in samples); FFmpeg 5.1's decoder honours its
        // start (the pre-skip) but not its end, so its decode carries the last frame's padding.
        #expect(Self.int(stream["duration_ts"]) == fromOgg.count)
        #expect(fromMP4.count >= fromOgg.count && fromMP4.count - fromOgg.count < 960, "\(fromMP4.count) vs \(fromOgg.count)")
        #expect(Array(fromMP4.prefix(fromOgg.count)) == fromOgg, "the same packets decode to the same samples")

        let file = try Data(contentsOf: URL(fileURLWithPath: mp4))
        let dOps = try #require(Self.find("dOps", in: file))
        #expect(Int16(bitPattern: Self.be(file, dOps + 8, UInt16.self)) == (try OggOpusHeader.outputGain(path: ogg)))
        #expect(Self.be(file, dOps + 2, UInt16.self) == 312, "pre-skip")
        // moov before mdat: a player can start before the whole file is in.
        #expect(try #require(file.range(of: Data("moov".utf8))).lowerBound < (try #require(file.range(of: Data("mdat".utf8))).lowerBound))

        let played = try AudioProcessor().process(path: mp4).analysis.loudnessLUFS
        let original = try AudioProcessor().process(path: ogg).analysis.loudnessLUFS
        #expect(abs((played ?? 0) - (original ?? 99)) <= 0.5, "\(played ?? 0) LUFS vs \(original ?? 0)")
    }

    @Test("CAF: the packet table comes first and its valid frames are the Ogg's samples exactly; ffprobe reads it (without the priming and remainder, see the README)", arguments: cases)
    func caf(_ name: String) async throws {
        let made = try Self.remuxed(name, to: .caf)
        defer { made.scratch.remove() }
        let (ogg, caf, summary) = (made.ogg, made.output, made.summary)
        let fromOgg = try Self.samples(ogg)

        let file = try Data(contentsOf: URL(fileURLWithPath: caf))
        #expect(file.prefix(4) == Data("caff".utf8))
        let desc = try #require(Self.find("desc", in: file)) + 8
        #expect(Self.be(file, desc, UInt64.self) == Double(48_000).bitPattern)
        #expect(file[(desc + 8)..<(desc + 12)] == Data("opus".utf8))
        let pakt = try #require(Self.find("pakt", in: file)) + 8
        #expect(pakt < (try #require(Self.find("data", in: file))), "the packet table before the audio")
        #expect(Self.be(file, pakt, UInt64.self) == UInt64(summary.packets))
        let valid = Self.be(file, pakt + 8, UInt64.self)
        #expect(Int(valid) == fromOgg.count, "valid frames \(valid) vs the Ogg's \(fromOgg.count) samples")
        #expect(Self.be(file, pakt + 16, UInt32.self) == 312, "priming = the pre-skip")
        let remainder = Self.be(file, pakt + 20, UInt32.self)
        #expect(Int(valid) + 312 + Int(remainder) == summary.packets * 960)

        let probe = try await runProcess("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,duration", "-of", "json", caf])
        #expect(probe.status == 0, "\(probe.stderr)")
        let stream = try #require(((try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])?["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == "opus")
        // FFmpeg 5.1 reads every frame as audio (priming and remainder ignored): at most the
        // pre-skip (6.5 ms) and one frame's padding (< 20 ms) longer than the recording.
        let probed = try #require(Double(stream["duration"] as? String ?? ""))
        let seconds = Double(fromOgg.count) / 48_000
        #expect(probed >= seconds && probed - seconds < (312.0 + 960.0) / 48_000, "\(probed) s vs \(seconds) s")
        // The packets are the Ogg's: decoded, they are its samples shifted by the pre-skip, without the header gain.
        let fromCAF = try Self.samples(caf)
        #expect(fromCAF.count == summary.packets * 960)
        let gain = Float(pow(10, Double(try OggOpusHeader.outputGain(path: ogg)) / 256 / 20))
        let worst = zip(fromOgg, fromCAF.dropFirst(312)).map { abs($0 - $1 * gain) }.max() ?? 1
        #expect(worst < 1e-4, "largest difference \(worst)")
    }
}

@Suite("The encode job's one pass: no second analysis", .heavy)
struct EncodeWithStoredAnalysisTests {
    @Test("encoding with the stored analysis gives the full pass's header gain, and peaks of every sample it encodes", arguments: Fixtures.accepted)
    func sameOutput(_ fixture: Fixture) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let processor = AudioProcessor()
        let full = try processor.process(path: fixture.path, encodeTo: scratch.path("full.opus"), policy: .always)
        // The analysis as the row keeps it: through JSON and back.
        let stored = try JSONDecoder().decode(AudioAnalysis.self, from: JSONEncoder().encode(full.analysis))
        let (encoded, peaks, _) = try processor.encode(path: fixture.path, to: scratch.path("job.opus"), analysis: stored)
        #expect(try OggOpusHeader.outputGain(path: scratch.path("job.opus")) == (try OggOpusHeader.outputGain(path: scratch.path("full.opus"))))
        #expect(encoded.outputGainDB == full.encoded?.outputGainDB)
        // The peaks of the same decode, built apart from the encoder: byte-identical JSON.
        var reference = WaveformBuilder(sampleRate: 48_000, samplesPerPixel: processor.samplesPerPixel)
        _ = try AudioDecoder(path: fixture.path).decode { reference.add($0) }
        #expect(try peaks.jsonData() == reference.finish().jsonData(), "byte-identical peaks JSON")
        #expect(Set(scratch.contents()) == ["full.opus", "job.opus"], "no temporary file left")
    }
}
