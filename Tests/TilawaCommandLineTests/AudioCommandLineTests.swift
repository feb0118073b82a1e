import Foundation
import Testing
import TilawaTestSupport

@Suite("tilawa analyze and encode", .heavy)
struct CommandLineTests {
    @Test("analyze exits 0 for an accepted file and prints the figures")
    func analyzeAccepted() async throws {
        let fixture = try #require(Fixtures.accepted.first)
        let result = try await runProcess(tilawaBinary, ["analyze", fixture.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("verdict") && result.stdout.contains("accepted"))
        #expect(result.stderr.isEmpty)
    }

    @Test("analyze --json prints the analysis, verdict, reasons and source")
    func analyzeJSON() async throws {
        let fixture = try #require(Fixtures.named("speech_stereo_s16_44k1.wav"))
        let result = try await runProcess(tilawaBinary, ["analyze", "--json", fixture.path])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "accepted")
        #expect((object["reasons"] as? [String])?.isEmpty == true)
        let analysis = try #require(object["analysis"] as? [String: Any])
        for key in ["duration_seconds", "speech_seconds", "speech_ratio", "loudness_lufs", "peak_dbfs"] {
            #expect(analysis[key] is Double, "\(key)")
        }
        let source = try #require(object["source"] as? [String: Any])
        #expect(source["sample_rate"] as? Int == 44_100)
        #expect(source["channels"] as? Int == 2)
        #expect(source["codec"] as? String == "pcm_s16le")
    }

    @Test("Every rejected fixture exits 65 with one line 'tilawa: <code>: <message>' on stderr",
          arguments: Fixtures.all.filter { !$0.isAccepted })
    func analyzeRejected(_ fixture: Fixture) async throws {
        let result = try await runProcess(tilawaBinary, ["analyze", fixture.path])
        #expect(result.status == 65)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("tilawa: \(fixture.reasons[0]): ") == true, "\(result.stderr)")
    }

    @Test("encode writes the file and reports size and bitrate; a bad input exits 65 and writes nothing")
    func encode() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let good = try #require(Fixtures.named("speech.m4a"))
        let written = try await runProcess(tilawaBinary, ["encode", good.path, scratch.path("a.opus"), "--bitrate", "24"])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("bitrate"))
        #expect(scratch.contents() == ["a.opus"])

        let bad = try #require(Fixtures.named("random_bytes.wav"))
        let refused = try await runProcess(tilawaBinary, ["encode", bad.path, scratch.path("b.opus")])
        #expect(refused.status == 65)
        #expect(refused.stderr.hasPrefix("tilawa: unsupported_format: "))
        #expect(scratch.contents() == ["a.opus"])
    }

    @Test("A missing input file is exit 66 no_input, not a rejected recording")
    func missingInput() async throws {
        let result = try await runProcess(tilawaBinary, ["analyze", "/nonexistent/recording.wav"])
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("tilawa: no_input: "))
    }

    @Test("encode refuses a bitrate out of range as a usage error")
    func encodeUsage() async throws {
        let fixture = try #require(Fixtures.accepted.first)
        let result = try await runProcess(tilawaBinary, ["encode", fixture.path, "/tmp/never.opus", "--bitrate", "1000"])
        #expect(result.status == 64)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.opus"))
    }
}
