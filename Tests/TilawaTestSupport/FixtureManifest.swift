import Foundation
import Testing
import TilawaTestSupport

/// One entry of `audio-fixtures/manifest.json`: what a fixture is and what analysis must report.
public struct Fixture: Decodable, Sendable, CustomTestStringConvertible {
    public var file: String
    public var description: String
    public var codec: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var lossy: Bool?
    public var durationSeconds: Double?
    public var loudnessLUFS: Double?
    public var verdict: String
    public var reasons: [String]
    public var warnings: [String]

    enum CodingKeys: String, CodingKey {
        case file, description, codec, channels, lossy, verdict, reasons, warnings
        case sampleRate = "sample_rate"
        case durationSeconds = "duration_seconds"
        case loudnessLUFS = "loudness_lufs"
    }

    public var testDescription: String { file }
    public var path: String { Fixtures.directory.appendingPathComponent(file).path }
    public var isAccepted: Bool { verdict == "accepted" }
    /// Decodable files: everything whose only problem (if any) is its content, not its bytes.
    public var isDecodable: Bool { !reasons.contains { ["empty", "unreadable", "unsupported_format"].contains($0) } }

    /// How far the decoded duration may be from the manifest's: 1 ms for PCM; for lossy
    /// codecs their documented priming/padding (MP3 1105 samples + frame padding, AAC 1024 + 1 frame,
    /// Vorbis and Opus trim exactly but the manifest's figure is from ffprobe's timestamps).
    public var durationTolerance: Double {
        guard lossy == true else { return 0.001 }
        switch codec {
        case "mp3", "mp3float": return 0.060
        case "aac": return 0.050
        default: return 0.025
        }
    }
}

private struct Manifest: Decodable {
    public var fixtures: [Fixture]
}

public enum Fixtures {
    public static let directory = fixturesDirectory

    /// Every fixture of the manifest; an unreadable manifest is an empty list, which the
    /// manifest test turns into a failure.
    public static let all: [Fixture] = {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("manifest.json")),
              let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else { return [] }
        return manifest.fixtures
    }()

    public static var decodable: [Fixture] { all.filter(\.isDecodable) }
    public static var broken: [Fixture] { all.filter { !$0.isDecodable } }
    public static var accepted: [Fixture] { all.filter(\.isAccepted) }

    public static func named(_ file: String) -> Fixture? { all.first { $0.file == file } }
}
