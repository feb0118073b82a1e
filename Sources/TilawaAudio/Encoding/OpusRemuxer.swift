import CFFmpeg
import Foundation

/// The containers an Ogg Opus recording is also served in, for players that do not read Ogg
/// (AVPlayer on iOS): the same Opus packets, never a second lossy encode.
public enum OpusContainer: String, Sendable, CaseIterable {
    /// Opus in MP4 (ISO/IEC 14496-12 with the Opus mapping's `dOps` box): `audio/mp4`.
    case mp4
    /// Opus in Apple's Core Audio Format: `audio/x-caf`.
    case caf

    /// libavformat's muxer name.
    var muxer: String { rawValue }

    /// The artifact's file extension.
    public var fileExtension: String {
        switch self {
        case .mp4: "m4a"
        case .caf: "caf"
        }
    }

    /// The media type it is served as.
    public var mediaType: String {
        switch self {
        case .mp4: "audio/mp4"
        case .caf: "audio/x-caf"
        }
    }
}

/// Copies the Opus packets of an Ogg Opus file into MP4 or CAF with libavformat.
///
/// - MP4: the OpusHead becomes the `dOps` box, so the header's output gain (the playback
///   normalisation) and pre-skip travel with the file; the edit list starts after the
///   pre-skip. The last packet's duration is cut to what the Ogg's final granule position
///   keeps, so the presentation ends where the Ogg's does instead of on a whole 20 ms frame.
///   `moov` goes first (`faststart`), so a player can start before the whole file arrives.
/// - CAF: written by `CAFOpusWriter` rather than FFmpeg 5.1's CAF muxer, which drops the
///   pre-skip and the end trim and puts the packet table last (its files report a duration
///   of 1,344 hours to ffprobe): the pre-skip and end trim are the packet table's priming and
///   remainder frames, and the table comes before the audio. CAF has no place for the output
///   gain: players apply the submission's `playback_gain_db` themselves (see the README).
public enum OpusRemuxer {
    /// What a remux produced.
    public struct Summary: Sendable, Equatable {
        public var packets: Int
        public var bytes: Int
    }

    /// Writes `container`'s version of the Ogg Opus file at `oggPath` durably to `outputPath`.
    public static func remux(oggPath: String, to outputPath: String, container: OpusContainer) throws(OpusEncoderError) -> Summary {
        let temporary = DurableFile.temporaryPath(for: outputPath)
        do {
            let packets = try write(oggPath: oggPath, to: temporary, container: container)
            try DurableFile.commit(temporary, to: outputPath)
            var info = stat()
            return Summary(packets: packets, bytes: stat(outputPath, &info) == 0 ? Int(info.st_size) : 0)
        } catch {
            DurableFile.discard(temporary)
            throw error
        }
    }

    private static func write(oggPath: String, to path: String, container: OpusContainer) throws(OpusEncoderError) -> Int {
        if container == .caf { return try CAFOpusWriter.write(oggPath: oggPath, to: path) }
        var input: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_open_input(&input, oggPath, nil, nil)
        guard status == 0, let inputContext = input else { throw .io("cannot open \(oggPath): \(errorString(status))") }
        defer { avformat_close_input(&input) }
        status = avformat_find_stream_info(inputContext, nil)
        guard status >= 0 else { throw .io("cannot read \(oggPath): \(errorString(status))") }
        guard inputContext.pointee.nb_streams >= 1, let source = inputContext.pointee.streams[0],
              source.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_OPUS else {
            throw .io("\(oggPath) holds no Opus stream")
        }

        var output: UnsafeMutablePointer<AVFormatContext>?
        status = avformat_alloc_output_context2(&output, nil, container.muxer, path)
        guard status >= 0, let outputContext = output else { throw .io("cannot set up the \(container.rawValue) writer: \(errorString(status))") }
        defer {
            if outputContext.pointee.pb != nil { avio_closep(&outputContext.pointee.pb) }
            avformat_free_context(outputContext)
        }
        outputContext.pointee.strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL
        guard let stream = avformat_new_stream(outputContext, nil) else { throw .io("cannot add a stream") }
        status = avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar)
        guard status >= 0 else { throw .io("cannot copy the stream parameters: \(errorString(status))") }
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = AVRational(num: 1, den: 48_000)
        status = avio_open(&outputContext.pointee.pb, path, AVIO_FLAG_WRITE)
        guard status >= 0 else { throw .io("cannot create \(path): \(errorString(status))") }
        var options: OpaquePointer?
        if container == .mp4 {
            av_dict_set(&options, "movflags", "+faststart", 0)
            // The edit list in samples, not the default 1 ms: it ends exactly where the Ogg does.
            av_dict_set(&options, "movie_timescale", "48000", 0)
        }
        status = avformat_write_header(outputContext, &options)
        av_dict_free(&options)
        guard status >= 0 else { throw .io("cannot write the \(container.rawValue) header: \(errorString(status))") }

        guard let packet = av_packet_alloc() else { throw .io("out of memory") }
        var pending: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&pending) }
        var count = 0
        while true {
            status = av_read_frame(inputContext, packet)
            if status == tilawa_averror_eof() { break }
            guard status >= 0 else { throw .io("cannot read a packet of \(oggPath): \(errorString(status))") }
            guard packet.pointee.stream_index == 0 else {
                av_packet_unref(packet)
                continue
            }
            packet.pointee.stream_index = 0
            trimEnd(packet)
            av_packet_rescale_ts(packet, source.pointee.time_base, stream.pointee.time_base)
            packet.pointee.pos = -1
            status = av_interleaved_write_frame(outputContext, packet)
            guard status >= 0 else { throw .io("cannot write a packet: \(errorString(status))") }
            count += 1
        }
        status = av_write_trailer(outputContext)
        guard status >= 0 else { throw .io("cannot finish \(path): \(errorString(status))") }
        return count
    }

    /// The Ogg demuxer marks the samples past the final granule position on the last packet
    /// (`AV_PKT_DATA_SKIP_SAMPLES`, end trim); the packet's duration is cut by as much, so a
    /// container that times packets by duration ends the presentation there too.
    private static func trimEnd(_ packet: UnsafeMutablePointer<AVPacket>) {
        var size: Int = 0
        guard let data = av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else { return }
        let endTrim = Int64(UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24)
        if endTrim > 0, packet.pointee.duration > endTrim { packet.pointee.duration -= endTrim }
    }

    static func errorString(_ code: Int32) -> String {
        AudioDecoder.errorString(code)
    }
}
