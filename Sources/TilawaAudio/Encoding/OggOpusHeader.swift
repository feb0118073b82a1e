import Foundation

/// Rewrites the output gain of an Ogg Opus file's identification header in place.
///
/// The loudness of a recording is known only after the whole stream has been seen, while
/// libopusenc writes the header first; so the file is encoded in one pass and the gain is
/// set afterwards. RFC 7845 §3 requires the OpusHead packet alone on the first page, so the
/// change stays inside that page: the two gain bytes (§5.1, offset 16, signed Q7.8
/// little-endian) and the page's CRC (RFC 3533 §6: CRC-32, polynomial 0x04C11DB7,
/// initial 0, no reflection, computed with the CRC field zeroed).
public enum OggOpusHeader {
    /// Sets the output gain (Q7.8 dB) of the Ogg Opus file at `path`.
    public static func setOutputGain(_ gainQ78: Int16, path: String) throws(OpusEncoderError) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw .io("cannot open \(path) to set the output gain")
        }
        defer { try? handle.close() }
        do {
            guard let head = try handle.read(upToCount: 27 + 255) else { throw OpusEncoderError.io("empty Ogg file") }
            var page = [UInt8](head)
            guard page.count >= 27, page[0..<4].elementsEqual("OggS".utf8), page[5] & 0x02 != 0 else {
                throw OpusEncoderError.io("first page is not an Ogg beginning-of-stream page")
            }
            let segments = Int(page[26])
            guard page.count >= 27 + segments else { throw OpusEncoderError.io("short Ogg page header") }
            let bodyLength = page[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
            let pageLength = 27 + segments + bodyLength
            try handle.seek(toOffset: 0)
            guard let whole = try handle.read(upToCount: pageLength), whole.count == pageLength else {
                throw OpusEncoderError.io("short first Ogg page")
            }
            page = [UInt8](whole)
            let body = 27 + segments
            guard bodyLength >= 19, page[body..<(body + 8)].elementsEqual("OpusHead".utf8) else {
                throw OpusEncoderError.io("first packet is not OpusHead")
            }
            let gain = UInt16(bitPattern: gainQ78)
            page[body + 16] = UInt8(gain & 0xFF)
            page[body + 17] = UInt8(gain >> 8)
            page.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            let crc = oggCRC(page)
            page.replaceSubrange(22..<26, with: withUnsafeBytes(of: crc.littleEndian, Array.init))
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: Data(page))
        } catch let error as OpusEncoderError {
            throw error
        } catch {
            throw .io("cannot rewrite the Opus header: \(error.localizedDescription)")
        }
    }

    /// Reads the output gain (Q7.8 dB) back; used by tests and `status` checks.
    public static func outputGain(path: String) throws(OpusEncoderError) -> Int16 {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 28 else {
            throw .io("cannot read \(path)")
        }
        let bytes = [UInt8](data.prefix(27 + 255 + 19))
        let body = 27 + Int(bytes[26])
        guard bytes.count >= body + 19, bytes[body..<(body + 8)].elementsEqual("OpusHead".utf8) else {
            throw .io("first packet is not OpusHead")
        }
        return Int16(bitPattern: UInt16(bytes[body + 16]) | UInt16(bytes[body + 17]) << 8)
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 {
            value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1
        }
        return value
    }

    static func oggCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc = (crc << 8) ^ crcTable[Int((crc >> 24) ^ UInt32(byte))]
        }
        return crc
    }
}
