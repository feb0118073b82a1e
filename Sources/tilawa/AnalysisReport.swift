import Foundation
import TilawaAudio
import TilawaCore

/// The machine-readable result of `tilawa analyze --json` (DESIGN §4: `analysis` plus
/// `verdict`, `reasons`, `source`).
struct AnalysisReport: Encodable {
    var file: String
    var verdict: String
    var reasons: [String]
    var warnings: [String]
    var message: String?
    var analysis: AudioAnalysis?
    var source: AudioSource?

    init(file: String, processed: ProcessedAudio) {
        self.file = file
        verdict = processed.verdict.isAccepted ? "accepted" : "rejected"
        reasons = processed.verdict.rejections.map(\.code)
        warnings = processed.verdict.warnings.map(\.code)
        message = processed.verdict.primaryRejection?.message
        analysis = processed.analysis
        source = processed.source
    }

    init(file: String, rejection: AudioRejection) {
        self.file = file
        verdict = "rejected"
        reasons = [rejection.code]
        warnings = []
        message = rejection.message
    }

    enum CodingKeys: String, CodingKey {
        case file, verdict, reasons, warnings, message, analysis, source
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(reasons, forKey: .reasons)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(message, forKey: .message)
        try container.encode(analysis, forKey: .analysis)
        try container.encode(source, forKey: .source)
    }

    /// Human rows for the terminal.
    static func rows(for processed: ProcessedAudio) -> [(String, String)] {
        let analysis = processed.analysis
        let source = processed.source
        func level(_ value: Double?, _ unit: String) -> String {
            value.map { String(format: "%.1f %@", $0, unit) } ?? "none (silence)"
        }
        var rows: [(String, String)] = [
            ("source", "\(source.container) / \(source.codec), \(source.sampleRate) Hz, \(source.channels) ch"),
            ("duration", String(format: "%.3f s", analysis.durationSeconds)),
            ("speech", String(format: "%.1f s (%.0f %%), leading silence %.1f s, trailing %.1f s",
                              analysis.speechSeconds, analysis.speechRatio * 100,
                              analysis.leadingSilenceSeconds, analysis.trailingSilenceSeconds)),
            ("loudness", level(analysis.loudnessLUFS, "LUFS")),
            ("peak", level(analysis.peakDBFS, "dBFS") + String(format: ", %.3f %% clipped", analysis.clippedRatio * 100)),
            ("verdict", processed.verdict.isAccepted ? "accepted" : "rejected"),
        ]
        for rejection in processed.verdict.rejections { rows.append(("reason", "\(rejection.code): \(rejection.message)")) }
        for warning in processed.verdict.warnings { rows.append(("warning", "\(warning.code): \(warning.message)")) }
        return rows
    }
}
