import ArgumentParser
import Foundation
import TilawaAudio
import TilawaCore
import TilawaDaemon
import TilawaQuran
import TilawaStore

/// `tilawa align FILE --ayahs RANGES [--json]`: where the ayahs are in a recording, as the
/// encode job would store them, without storing anything (and what `make bench-align` runs).
struct AlignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "align",
        abstract: "Find where each ayah of a passage starts and ends in a recording.",
        discussion: "Exit status: 0 aligned, 65 when the recording cannot be aligned with confidence (the reason is printed)."
    )

    @Argument(help: "The recording (any format FFmpeg reads).")
    var file: String

    @Option(help: "The passage's ayah ranges, as in program.yaml (e.g. \"1:1-7; 114:1-6\").")
    var ayahs: String

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    struct Report: Encodable {
        var file: String
        var ayahs: String
        var markers: [AyahMarkers.Marker]
        /// Ayahs recited without a time of their own (run into the one before).
        var notFound: [AyahMarkers.AyahReference]
        var unavailableReason: String?
        var misfit: Double?
        /// How much better the sound fits the placed letters than random Quran text (a
        /// z-score; nil when the pauses already refused it).
        var soundScore: Double?
        /// Each unit the passage was aligned as (the optional openings first) and how it fitted
        /// in the best placement tried — kept when refused, to show why.
        var units: [Unit]
        /// The detector's stretches of speech the alignment worked from.
        var speechSegments: [SpeechSegment]
    }

    /// One unit of the plan and its fit.
    struct Unit: Encodable {
        var surah: Int
        var ayah: Int
        var preface: AyahMarkers.Preface?
        var letters: Int
        var optional: Bool
        /// `one`, `restarted` or `run_together` (with the next ayah); nil when left out or run into the one before.
        var placed: AyahAlignment.UnitFit.Kind?
        var startSeconds: Double?
        var endSeconds: Double?
        var seconds: Double?
        var expectedSeconds: Double?
        var zScore: Double?
        var insidePauses: Int?
    }

    func validate() throws {
        do {
            _ = try AyahRange.parseList(ayahs, in: .uthmani)
        } catch {
            throw ValidationError("--ayahs: \(error)")
        }
    }

    func run() throws {
        try CommandLineOutput.requireReadableFile(file)
        let processed: ProcessedAudio
        do {
            processed = try AudioProcessor().process(path: file, soundFrames: true)
        } catch let rejection as AudioRejection {
            throw CommandLineOutput.fail(code: rejection.code, message: rejection.message, exit: ExitStatus.dataRejected)
        }
        let normalised = (try? AyahRange.parseList(ayahs, in: .uthmani).listDescription) ?? ayahs
        let (markers, alignment) = AyahMarking.markers(ayahs: normalised, segments: processed.speechSegments,
                                                            sound: processed.soundFrames)
        let fits = Dictionary(alignment.fit.map { ($0.unit, $0) }, uniquingKeysWith: { first, _ in first })
        let rounded = { (value: Double) in (value * 100).rounded() / 100 }
        let units = AyahMarking.plan(ayahs: normalised).enumerated().map { index, planned in
            let fit = fits[index]
            return Unit(surah: planned.surah, ayah: planned.ayah, preface: planned.preface, letters: planned.unit.letters,
                        optional: planned.unit.optional, placed: fit?.kind, startSeconds: fit.map { rounded($0.start) },
                        endSeconds: fit.map { rounded($0.end) }, seconds: fit.map { rounded($0.seconds) },
                        expectedSeconds: fit.map { rounded($0.expectedSeconds) }, zScore: fit.map { rounded($0.zScore) },
                        insidePauses: fit?.insidePauses)
        }
        let report = Report(file: file, ayahs: normalised, markers: markers.markers, notFound: markers.notFound,
                            unavailableReason: markers.unavailableReason,
                            misfit: alignment.misfit, soundScore: alignment.soundScore.map(rounded), units: units, speechSegments: processed.speechSegments)
        if json {
            try CommandLineOutput.printJSON(report)
        } else {
            let timed: [(String, String)] = markers.markers.map { marker in
                let name = marker.preface?.rawValue ?? "\(marker.surah):\(marker.ayah)"
                return (name, String(format: "%.2f–%.2f s", marker.startSeconds, marker.endSeconds))
            }
            let untimed: [(String, String)] = markers.notFound.map { ("\($0.surah):\($0.ayah)", "not found (recited with the ayah before it)") }
            CommandLineOutput.printRows([("file", file), ("ayahs", normalised)] + timed + untimed)
        }
        if let reason = markers.unavailableReason {
            throw CommandLineOutput.fail(code: reason, message: "the recording cannot be aligned to \(normalised) with confidence",
                                         exit: ExitStatus.dataRejected)
        }
    }
}
