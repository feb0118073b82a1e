import CFFmpeg
import Foundation
import TilawaCore

/// Streams any audio file FFmpeg can read as mono Float32 blocks at 48 kHz.
///
/// Memory stays constant with the recording's length: one packet, one frame and one
/// converted block are alive at a time. Channels are mixed to mono as their mean (a
/// custom libswresample matrix), so a full-scale stereo file never clips in the mix.
///
/// The decoder owns FFmpeg handles and is used from one thread at a time; it is
/// deliberately not `Sendable`.
///
/// (Over 300 lines on purpose: opening, the decode loop and the teardown of the same FFmpeg
/// handles stay in one file so that every allocation can be read beside its free.)
public final class AudioDecoder {
    /// The rate of every block this decoder produces.
    public static let outputSampleRate: Int32 = 48_000

    /// What the file is, as FFmpeg sees it.
    public let source: AudioSource
    /// Duration the container declares, when it comes from the header or timestamps and
    /// not from a bitrate guess; used to tell a truncated file from a short one.
    public let declaredDurationSeconds: Double?

    var formatContext: UnsafeMutablePointer<AVFormatContext>?
    var codecContext: UnsafeMutablePointer<AVCodecContext>?
    var resampler: OpaquePointer?
    var resamplerInput: (format: Int32, rate: Int32, channels: Int32)?
    var packet: UnsafeMutablePointer<AVPacket>?
    var frame: UnsafeMutablePointer<AVFrame>?
    var output: [Float] = []
    let streamIndex: Int32
    let timeBase: AVRational

    /// Opens `path` and prepares its best audio stream.
    ///
    /// - Throws: `AudioRejection.empty` for a 0-byte file, `.unsupportedFormat` when the
    ///   file is not a recognisable audio container or has no decodable audio stream, and
    ///   `.unreadable` when it is recognised but its headers are broken.
    public init(path: String) throws(AudioRejection) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unreadable(detail: "cannot open file: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(detail: "not a regular file") }
        guard info.st_size > 0 else { throw .empty }

        var openedContext: UnsafeMutablePointer<AVFormatContext>? = nil
        let opened = avformat_open_input(&openedContext, path, nil, nil)
        guard opened >= 0, let context = openedContext else {
            // Opening fails both for junk and for a recognised container with a broken
            // header; the probe score tells which.
            throw Self.probeScore(path: path) >= AVPROBE_SCORE_RETRY
                ? .unreadable(detail: "cannot open: \(Self.errorString(opened))")
                : .unsupportedFormat(detail: "not a recognised audio container")
        }
        var ownedCodec: UnsafeMutablePointer<AVCodecContext>? = nil
        var cleanup = true
        defer { if cleanup { Self.release(format: &openedContext, codec: &ownedCodec) } }

        // A low score means FFmpeg guessed (e.g. a text file named .mp3): not audio.
        guard context.pointee.probe_score >= AVPROBE_SCORE_RETRY else {
            throw .unsupportedFormat(detail: "format detected only with low confidence (\(context.pointee.probe_score))")
        }
        let containerName = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        if containerName == "wav" { try WAVLengthCheck.verify(path: path) }
        let found = avformat_find_stream_info(context, nil)
        guard found >= 0 else { throw .unreadable(detail: "cannot read stream info: \(Self.errorString(found))") }

        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let stream = context.pointee.streams[Int(index)] else {
            // FFmpeg skips audio streams without channels or a rate: such a stream is a
            // broken recording, not a file that isn't audio.
            let hasAudio = (0..<Int(context.pointee.nb_streams)).contains {
                context.pointee.streams[$0]?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
            }
            throw hasAudio
                ? .unreadable(detail: "audio stream without channels or sample rate")
                : .unsupportedFormat(detail: "no audio stream in \(containerName)")
        }
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw .unsupportedFormat(detail: "no decoder for \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))")
        }
        let channels = parameters.pointee.ch_layout.nb_channels
        let rate = parameters.pointee.sample_rate
        guard channels > 0, channels <= 64 else { throw .unreadable(detail: "invalid channel count \(channels)") }
        guard rate >= 1_000, rate <= 768_000 else { throw .unreadable(detail: "invalid sample rate \(rate)") }

        guard let codecContext = avcodec_alloc_context3(codec) else {
            throw .unreadable(detail: "out of memory")
        }
        ownedCodec = codecContext
        guard avcodec_parameters_to_context(codecContext, parameters) >= 0 else {
            throw .unreadable(detail: "invalid codec parameters")
        }
        codecContext.pointee.pkt_timebase = stream.pointee.time_base
        let codecOpened = avcodec_open2(codecContext, codec, nil)
        guard codecOpened >= 0 else { throw .unreadable(detail: "cannot open decoder: \(Self.errorString(codecOpened))") }

        streamIndex = index
        timeBase = stream.pointee.time_base
        source = AudioSource(
            container: containerName,
            codec: String(cString: codec.pointee.name),
            sampleRate: Int(rate),
            channels: Int(channels)
        )
        declaredDurationSeconds = Self.declaredDuration(context: context, stream: stream)
        guard let packet = av_packet_alloc() else { throw .unreadable(detail: "out of memory") }
        guard let frame = av_frame_alloc() else {
            var unused: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&unused)
            throw .unreadable(detail: "out of memory")
        }
        self.packet = packet
        self.frame = frame
        self.formatContext = context
        self.codecContext = codecContext
        cleanup = false
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        swr_free(&resampler)
        Self.release(format: &formatContext, codec: &codecContext)
    }

    /// Decodes the whole stream, handing each mono 48 kHz block to `sink`, and returns the
    /// number of samples produced.
    ///
    /// Decoding stops early once more than `limitSeconds` have been produced (so a
    /// ten-hour upload costs no more than the limit); `reachedLimit` then says so.
    /// - Throws: `AudioRejection.unreadable` when the stream is damaged beyond the odd
    ///   bad packet; whatever `sink` throws.
    public func decode(
        limitSeconds: Double? = nil,
        into sink: (UnsafeBufferPointer<Float>) throws -> Void
    ) throws -> DecodeSummary {
        guard let formatContext, let codecContext, let packet, let frame else {
            throw AudioRejection.unreadable(detail: "decoder already used")
        }
        let limitSamples = limitSeconds.map { Int(($0 * Double(Self.outputSampleRate)).rounded(.up)) }
        var produced = 0
        var packets = 0, badPackets = 0
        var reachedLimit = false

        func drainFrames() throws {
            while true {
                let received = avcodec_receive_frame(codecContext, frame)
                if received == tilawa_averror_eagain() || received == tilawa_averror_eof() { return }
                if received < 0 {
                    badPackets += 1
                    return
                }
                produced += try convert(frame: frame, into: sink)
                av_frame_unref(frame)
                if let limitSamples, produced > limitSamples {
                    reachedLimit = true
                    return
                }
            }
        }

        reading: while !reachedLimit {
            let read = av_read_frame(formatContext, packet)
            if read == tilawa_averror_eof() { break reading }
            if read < 0 {
                // A read error other than EOF is a damaged file (or an I/O error); what came
                // before it is not a trustworthy recording.
                throw AudioRejection.unreadable(detail: "read failed: \(Self.errorString(read))")
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            packets += 1
            let sent = avcodec_send_packet(codecContext, packet)
            if sent < 0 && sent != tilawa_averror_eagain() {
                badPackets += 1
                continue
            }
            try drainFrames()
        }
        if !reachedLimit {
            avcodec_send_packet(codecContext, nil)
            try drainFrames()
        }
        produced += try flushResampler(into: sink)

        // A few bad packets are tolerated (lossy streams survive them); a stream that is
        // mostly damage is not a recording.
        if packets > 0 && badPackets * 2 > packets {
            throw AudioRejection.unreadable(detail: "\(badPackets) of \(packets) packets could not be decoded")
        }
        if produced == 0 {
            throw badPackets > 0 ? AudioRejection.unreadable(detail: "no packet could be decoded") : AudioRejection.empty
        }
        let seconds = Double(produced) / Double(Self.outputSampleRate)
        if !reachedLimit, let declared = declaredDurationSeconds,
           declared - seconds > max(0.5, declared * 0.05) {
            throw AudioRejection.unreadable(
                detail: String(format: "truncated: header declares %.2f s, only %.2f s present", declared, seconds))
        }
        return DecodeSummary(samples: produced, reachedLimit: reachedLimit)
    }

    // MARK: - Helpers

    private static func declaredDuration(
        context: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>
    ) -> Double? {
        guard av_fmt_ctx_get_duration_estimation_method(context) != AVFMT_DURATION_FROM_BITRATE else { return nil }
        let duration = stream.pointee.duration
        guard duration != tilawa_av_nopts_value(), duration > 0 else { return nil }
        return Double(duration) * av_q2d(stream.pointee.time_base)
    }

    /// Asks FFmpeg how sure it is of the file's format, from the first 64 KiB.
    private static func probeScore(path: String) -> Int32 {
        guard let handle = FileHandle(forReadingAtPath: path) else { return 0 }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        var buffer = [UInt8](head)
        buffer.append(contentsOf: repeatElement(0, count: Int(AVPROBE_PADDING_SIZE)))
        var score: Int32 = 0
        buffer.withUnsafeMutableBufferPointer { bytes in
            path.withCString { name in
                var probe = AVProbeData(filename: name, buf: bytes.baseAddress, buf_size: Int32(head.count), mime_type: nil)
                _ = av_probe_input_format3(&probe, 1, &score)
            }
        }
        return score
    }

    static func release(
        format: inout UnsafeMutablePointer<AVFormatContext>?, codec: inout UnsafeMutablePointer<AVCodecContext>?
    ) {
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    static func errorString(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension AudioDecoder {
    private static let quietLogging: Void = { av_log_set_level(AV_LOG_QUIET) }()

    /// FFmpeg logs to stderr by default; a damaged upload must not spill library chatter into
    /// the daemon's log or the CLI's one-line errors. Idempotent.
    public static func silenceLibraryLogging() { _ = quietLogging }
}
