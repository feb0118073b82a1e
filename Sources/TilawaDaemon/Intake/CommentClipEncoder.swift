import Foundation
import TilawaAudio
import TilawaCore
import TilawaStore

/// Short voice clips — in a reply's thread, and a coach's spoken correction on an
/// annotation: the one-pass chain every recording takes (decode, analyse, Ogg Opus
/// normalised through the header gain, waveform peaks) under the clip limits
/// (`AudioLimits.commentClip`: 1 s to 3 min, some speech; `annotationClip`: 1 to 30 s).
/// The Opus file and its peaks are placed durably before the row that owns them is
/// written; the upload itself is not kept (a clip is a message, not a recording under review).
public struct CommentClipEncoder: Sendable {
    public let stateDirectory: StateDirectory
    public let processor: AudioProcessor
    /// Where its clips live (`comments/…`, `annotations/…`).
    public let family: ArtifactStore.Family

    /// A clip placed durably, or the verdict that refused it.
    public enum Outcome: Sendable {
        case encoded(CommentRecord.Clip)
        case rejected(AudioVerdict)
    }

    public init(stateDirectory: StateDirectory, encoder: OpusEncoderSettings, limits: AudioLimits = .commentClip,
                family: ArtifactStore.Family = .comments) {
        self.stateDirectory = stateDirectory
        self.family = family
        processor = AudioProcessor(limits: limits, encoder: encoder)
    }

    /// Encodes the clip `staged` holds (consumed either way) to `<family>/YYYY/MM/<id>.opus`
    /// and `<id>.peaks.json`; a clip the limits reject leaves no file behind.
    public func encode(staged: StagedFile, now: Date) throws -> Outcome {
        defer { staged.discard() }
        let store = stateDirectory.artifactStore
        let id = IdentifierGenerator.make("clip", now: now)
        let audioPath = store.relativePath(family, name: "\(id).opus", date: now)
        let waveformPath = store.relativePath(family, name: "\(id).peaks.json", date: now)
        try store.prepareDirectory(for: audioPath)
        let judged: ProcessedAudio
        let encoded: EncodedAudio, waveform: WaveformPeaks
        do {
            // Judged before it is encoded: a clip of minutes that will be refused (too long,
            // silent) costs one decode, not an encode; an accepted one is decoded once more to
            // encode it, with the gain from this analysis (no second one).
            judged = try processor.process(path: staged.path)
            guard judged.verdict.isAccepted else { return .rejected(judged.verdict) }
            (encoded, waveform, _) = try processor.encode(path: staged.path, to: store.path(audioPath), analysis: judged.analysis)
        } catch let rejection as AudioRejection {
            return .rejected(AudioVerdict(rejection: rejection))
        }
        do {
            try store.write(waveform.jsonData(), to: waveformPath)
            try store.publish(audioPath)
        } catch {
            store.remove(audioPath)
            store.remove(waveformPath)
            throw error
        }
        return .encoded(CommentRecord.Clip(
            audioPath: audioPath, audioBytes: encoded.bytes, waveformPath: waveformPath,
            durationSeconds: judged.analysis.durationSeconds, outputGainDB: encoded.outputGainDB))
    }

    /// Removes the files of a clip whose row was not recorded.
    public func discard(_ clip: CommentRecord.Clip) {
        stateDirectory.artifactStore.remove(clip.audioPath)
        stateDirectory.artifactStore.remove(clip.waveformPath)
    }
}
