import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaAudio
import TilawaCore

@Suite("The same Opus packets in MP4 and CAF")
struct OpusRemuxerTests {
    /// Every sample `path` decodes to (mono 48 kHz, through FFmpeg's decoder, header gain applied).
    static func samples(_ path: String) throws -> [Float] {
        var all: [Float] = []
        _ = try AudioDecoder(path: path).decode { all.append(contentsOf: $0) }
        return all
    }

    @Test("explore")
    func explore() async throws {
        let fixture = try #require(Fixtures.named("speech_mono_s16_48k.wav"))
        let ogg = "/tmp/remux.opus"
        _ = try AudioProcessor().process(path: fixture.path, encodeTo: ogg, policy: .always)
        for container in OpusContainer.allCases {
            let out = "/tmp/remux.\(container.fileExtension)"
            let summary = try OpusRemuxer.remux(oggPath: ogg, to: out, container: container)
            print("REMUX", container, summary)
        }
        let a = try Self.samples(ogg), b = try Self.samples("/tmp/remux.m4a"), c = try Self.samples("/tmp/remux.caf")
        print("SAMPLES", a.count, b.count, c.count)
        let n = min(a.count, b.count)
        var maxDiff: Float = 0
        for i in 0..<n { maxDiff = max(maxDiff, abs(a[i] - b[i])) }
        print("MAXDIFF mp4", maxDiff)
        var best = (0, Float.infinity)
        for shift in -400...400 {
            var d: Float = 0
            for i in 2000..<12000 { d = max(d, abs(a[i] - c[i + shift < 0 ? 0 : i + shift])) }
            if d < best.1 { best = (shift, d) }
        }
        print("CAF best shift", best)
    }
}
