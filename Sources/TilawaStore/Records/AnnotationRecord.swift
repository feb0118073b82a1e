import Foundation
import GRDB
import TilawaCore

/// A moment of a recording a coach marked: where, which ayah (optional), what kind of
/// mistake, a short note, and optionally a spoken correction (1–30 s).
public struct AnnotationRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "annotation"

    public var id: String
    public var submissionId: String
    public var studentId: String
    /// The coach who wrote it (its author: the only one who may delete it).
    public var coachId: String
    public var atSeconds: Double
    public var surah: Int?
    public var ayah: Int?
    public var kind: AnnotationKind
    /// At most `AnnotationDraft.maximumTextLength` characters; may be empty beside a spoken correction.
    public var text: String
    public var createdAt: Date
    /// The spoken correction's Ogg Opus file (`annotations/YYYY/MM/<id>.opus`); nil for text only.
    public var audioPath: String?
    public var audioBytes: Int?
    /// The correction's waveform peaks JSON.
    public var waveformPath: String?
    public var durationSeconds: Double?
    /// The OpusHead output gain the correction was normalised with.
    public var outputGainDB: Double?

    /// The spoken correction, when there is one (the clip type every short voice message uses).
    public var clip: CommentRecord.Clip? {
        guard let audioPath, let waveformPath else { return nil }
        return CommentRecord.Clip(audioPath: audioPath, audioBytes: audioBytes ?? 0, waveformPath: waveformPath,
                                  durationSeconds: durationSeconds ?? 0, outputGainDB: outputGainDB ?? 0)
    }

    /// The artifact files it owns (the correction and its peaks, and any MP4/CAF variant made on request).
    public var files: [String] {
        [audioPath, waveformPath].compactMap { $0 } + ArtifactStore.variants(ofAudio: audioPath ?? "")
    }
}
