import CFFmpeg
import Foundation

/// Writes the Opus packets of an Ogg Opus file as a Core Audio Format file (Apple's CAF
/// specification: `caff` header; `desc`, `pakt`, `data` chunks, in that order, so a player
/// reading from the start knows every packet's place before the audio).
///
/// The packet table's priming frames are the OpusHead pre-skip and its remainder frames the
/// samples the Ogg's final granule position cuts from the last packet, so a CAF reader plays
/// exactly the Ogg's samples. The OpusHead output gain has no CAF field and is not applied.
enum CAFOpusWriter {
    /// One Opus packet: its bytes and the samples (48 kHz) it decodes to.
    struct Packet {
        var data: [UInt8]
        var frames: Int64
    }

    static func write(oggPath: String, to path: String) throws(OpusEncoderError) -> Int {
        let (packets, preSkip, channels, endTrim) = try readPackets(oggPath)
        let total = packets.reduce(0) { $0 + $1.frames }
        let valid = max(0, total - Int64(preSkip) - endTrim)
        // Every packet of libopusenc's output is one 20 ms frame; a file with others gets a
        // table of frames per packet instead of a constant.
        let constant = packets.allSatisfy { $0.frames == 960 }
        var file = [UInt8]()
        file += Array("caff".utf8) + be(UInt16(1)) + be(UInt16(0))

        var desc = [UInt8]()
        desc += be(Double(48_000).bitPattern)
        desc += Array("opus".utf8)
        desc += be(UInt32(0))                        // format flags
        desc += be(UInt32(0))                        // bytes per packet: variable
        desc += be(UInt32(constant ? 960 : 0))       // frames per packet
        desc += be(UInt32(channels))
        desc += be(UInt32(0))                        // bits per channel: compressed
        file += chunk("desc", desc)

        var table = [UInt8]()
        table += be(UInt64(packets.count))
        table += be(UInt64(valid))
        table += be(UInt32(preSkip))
        table += be(UInt32(endTrim))
        for packet in packets {
            table += varint(UInt64(packet.data.count))
            if !constant { table += varint(UInt64(packet.frames)) }
        }
        file += chunk("pakt", table)

        var data = be(UInt32(0))                     // edit count
        data.reserveCapacity(4 + packets.reduce(0) { $0 + $1.data.count })
        for packet in packets { data += packet.data }
        file += chunk("data", data)

        guard FileManager.default.createFile(atPath: path, contents: Data(file)) else {
            throw .io("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return packets.count
    }

    /// The Ogg's packets (through libavformat's Ogg demuxer), its pre-skip and channel count
    /// (OpusHead) and the end trim of its last packet.
    static func readPackets(_ oggPath: String) throws(OpusEncoderError) -> (packets: [Packet], preSkip: Int, channels: Int, endTrim: Int64) {
        var input: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_open_input(&input, oggPath, nil, nil)
        guard status == 0, let context = input else { throw .io("cannot open \(oggPath): \(OpusRemuxer.errorString(status))") }
        defer { avformat_close_input(&input) }
        status = avformat_find_stream_info(context, nil)
        guard status >= 0, context.pointee.nb_streams >= 1, let stream = context.pointee.streams[0],
              let parameters = stream.pointee.codecpar, parameters.pointee.codec_id == AV_CODEC_ID_OPUS,
              parameters.pointee.extradata_size >= 19, let head = parameters.pointee.extradata else {
            throw .io("\(oggPath) holds no Opus stream with its OpusHead")
        }
        let preSkip = Int(head[10]) | Int(head[11]) << 8
        let channels = Int(head[9])
        guard let packet = av_packet_alloc() else { throw .io("out of memory") }
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&owned) }
        var packets: [Packet] = []
        var endTrim: Int64 = 0
        let scale = stream.pointee.time_base
        while true {
            status = av_read_frame(context, packet)
            if status == tilawa_averror_eof() { break }
            guard status >= 0 else { throw .io("cannot read a packet of \(oggPath): \(OpusRemuxer.errorString(status))") }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == 0, let bytes = packet.pointee.data else { continue }
            var size = 0
            if let side = av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 {
                endTrim = Int64(UInt32(side[4]) | UInt32(side[5]) << 8 | UInt32(side[6]) << 16 | UInt32(side[7]) << 24)
            }
            let frames = av_rescale_q(packet.pointee.duration, scale, AVRational(num: 1, den: 48_000))
            packets.append(Packet(data: Array(UnsafeBufferPointer(start: bytes, count: Int(packet.pointee.size))), frames: frames))
        }
        // The demuxer gives the last packet the duration that is kept; the table counts whole frames.
        if endTrim > 0, var last = packets.last, last.frames < 960 {
            last.frames += endTrim
            packets[packets.count - 1] = last
        }
        return (packets, preSkip, channels, endTrim)
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        Array(type.utf8) + be(UInt64(body.count)) + body
    }

    private static func be<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// CAF's variable-length integer: 7 bits a byte, most significant first, the high bit set on all but the last.
    static func varint(_ value: UInt64) -> [UInt8] {
        var bytes = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return bytes
    }
}
