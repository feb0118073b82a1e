import Foundation
import TilawaCore

/// The audio chain in one pass: decode → analyse → optionally encode to Ogg Opus.
///
/// The decoder's blocks feed the analysis and the encoder together; the playback gain is
/// known only at the end and is written into the finished file's OpusHead
/// (`OggOpusHeader`). Output goes to a temporary name and is renamed into place only when
/// everything succeeded, so a failure leaves no file behind.
public struct AudioProcessor: Sendable {
    /// When the encoder's output is kept.
    public enum EncodePolicy: Sendable {
        /// Keep the Opus file only when the verdict accepts the recording.
        case ifAccepted
        /// Keep it whenever the file could be decoded (`tilawa encode`: no rules).
        case always
    }

    /// Limits for the verdict.
    public var limits: AudioLimits
    /// Encoder settings and the loudness target.
    public var encoder: OpusEncoderSettings
    /// Samples per waveform pixel at 48 kHz (960 = 20 ms, 50 pixels a second), for `encode`.
    public var samplesPerPixel: Int

    /// Creates a processor with the given limits and settings.
    public init(limits: AudioLimits = AudioLimits(), encoder: OpusEncoderSettings = OpusEncoderSettings(), samplesPerPixel: Int = 960) {
        self.limits = limits
        self.encoder = encoder
        self.samplesPerPixel = samplesPerPixel
    }

    /// Decodes and analyses `path`, and encodes it to `output` when one is given.
    ///
    /// - Returns: the analysis and verdict; `encoded` is set when the Opus file was kept.
    /// - Throws: `AudioRejection` when the file cannot be decoded (`empty`, `unreadable`,
    ///   `unsupported_format`); `OpusEncoderError` when encoding or writing fails. No output
    ///   file exists after a throw.
    ///   With `soundFrames`, the pass also keeps the recording's `SoundFrames` (`tilawa align`).
    public func process(path: String, encodeTo output: String? = nil, policy: EncodePolicy = .ifAccepted,
                        soundFrames: Bool = false) throws -> ProcessedAudio {
        AudioDecoder.silenceLibraryLogging()
        let decoder = try AudioDecoder(path: path)
        let analyzer = AudioAnalyzer()
        let sound = soundFrames ? SoundFrameBuilder() : nil
        let temporary = output.map(DurableFile.temporaryPath(for:))
        var keepTemporary = false
        defer { if let temporary, !keepTemporary { DurableFile.discard(temporary) } }

        let opus = try temporary.map { EncoderThread(encoder: try OpusFileEncoder(path: $0, settings: encoder)) }
        opus?.start()
        // Whatever happens below, the encoder thread has stopped before the temporary file is discarded.
        var opusFinished = false
        defer { if !opusFinished { try? opus?.finish(abandon: true) } }
        // Stop a little past the limit: enough to know it is too long, without decoding hours.
        let summary = try decoder.decode(limitSeconds: limits.maxDurationSeconds + 1) { block in
            analyzer.add(block)
            sound?.add(block)
            try opus?.write(block)
        }
        var analysis = analyzer.finish()
        if summary.reachedLimit, let declared = decoder.declaredDurationSeconds {
            analysis.durationSeconds = max(analysis.durationSeconds, declared)
        }
        let verdict = limits.verdict(for: analysis)

        var encoded: EncodedAudio? = nil
        if let opus, let temporary, let output, policy == .always || verdict.isAccepted {
            opusFinished = true
            try opus.finish()
            let gain = PlaybackGain.decibels(loudnessLUFS: analysis.loudnessLUFS, peakDBFS: analysis.peakDBFS, settings: encoder)
            let q78 = PlaybackGain.q78(gain)
            try OggOpusHeader.setOutputGain(q78, path: temporary)
            try DurableFile.commit(temporary, to: output)
            keepTemporary = true
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            encoded = EncodedAudio(path: output, bytes: bytes, outputGainDB: Double(q78) / 256, durationSeconds: analysis.durationSeconds)
        }
        return ProcessedAudio(source: decoder.source, analysis: analysis, verdict: verdict, encoded: encoded,
                              speechSegments: analyzer.speechSegments, soundFrames: sound?.finish())
    }

    /// Encodes a recording already judged, without analysing it again: one decode feeds the
    /// encoder and the waveform peaks; the playback gain comes from `analysis` — the figures
    /// the upload's own pass measured on the same decoded samples, so the header gain is the
    /// one a second analysis would have found.
    ///
    /// Everything runs on the calling thread. Its callers are the daemon's encode jobs (one
    /// per core) and voice comments of at most a few minutes: a second thread would overlap
    /// decoding with encoding, shortening one encode by the few per cent decoding costs, but
    /// spend CPU on the hand-off that the other work of a burst would have used.
    ///
    /// With `soundFrames` the same decode also yields the recording's `SoundFrames`, for the
    /// check that it recites its passage (a submission's encode job; about 1 % more CPU).
    ///
    /// - Throws: as `process`; no output file exists after a throw.
    public func encode(path: String, to output: String, analysis: AudioAnalysis, soundFrames: Bool = false) throws
        -> (encoded: EncodedAudio, waveform: WaveformPeaks, sound: SoundFrames?) {
        AudioDecoder.silenceLibraryLogging()
        let decoder = try AudioDecoder(path: path)
        var peaks = WaveformBuilder(sampleRate: Int(AudioDecoder.outputSampleRate), samplesPerPixel: samplesPerPixel)
        let sound = soundFrames ? SoundFrameBuilder() : nil
        let temporary = DurableFile.temporaryPath(for: output)
        var keepTemporary = false
        defer { if !keepTemporary { DurableFile.discard(temporary) } }
        let opus = try OpusFileEncoder(path: temporary, settings: encoder)
        _ = try decoder.decode(limitSeconds: limits.maxDurationSeconds + 1) { block in
            peaks.add(block)
            sound?.add(block)
            try opus.write(block)
        }
        try opus.finish()
        let q78 = PlaybackGain.q78(PlaybackGain.decibels(loudnessLUFS: analysis.loudnessLUFS, peakDBFS: analysis.peakDBFS, settings: encoder))
        try OggOpusHeader.setOutputGain(q78, path: temporary)
        try DurableFile.commit(temporary, to: output)
        keepTemporary = true
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        return (EncodedAudio(path: output, bytes: bytes, outputGainDB: Double(q78) / 256, durationSeconds: analysis.durationSeconds),
                peaks.finish(), sound?.finish())
    }
}
