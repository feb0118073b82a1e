import Foundation
import TilawaCore

/// Tells a truncated WAV from a short one by walking its RIFF chunks.
///
/// FFmpeg's WAV demuxer quietly clamps a `data` chunk that claims more bytes than the file
/// holds, so an upload cut off by a dropped connection would decode as a shorter, valid
/// recording. A student should hear "upload it again", not "too short". The placeholder
/// sizes streaming writers leave (0 and 0xFFFFFFFF) mean "unknown" and are accepted, as are
/// RF64/BW64 files, whose real sizes live in `ds64`.
enum WAVLengthCheck {
    /// Bytes a `data` chunk may claim beyond the end of the file before it counts as truncated
    /// (some writers round up to a block).
    static let tolerance: UInt64 = 4096

    /// Throws `.unreadable` when the `data` chunk claims more than the file holds.
    static func verify(path: String) throws(AudioRejection) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        guard let fileSize = try? handle.seekToEnd(), (try? handle.seek(toOffset: 0)) != nil,
              let header = try? handle.read(upToCount: 12), header.count == 12 else { return }
        let bytes = [UInt8](header)
        guard bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else { return }

        var offset: UInt64 = 12
        // Bounded walk: a file with thousands of chunks before `data` is not a recording.
        for _ in 0..<1_000 {
            guard offset + 8 <= fileSize, (try? handle.seek(toOffset: offset)) != nil,
                  let chunkHeader = try? handle.read(upToCount: 8), chunkHeader.count == 8 else { return }
            let chunk = [UInt8](chunkHeader)
            let size = UInt64(chunk[4]) | UInt64(chunk[5]) << 8 | UInt64(chunk[6]) << 16 | UInt64(chunk[7]) << 24
            let body = offset + 8
            if chunk[0..<4].elementsEqual("data".utf8) {
                if size == 0 || size == 0xFFFF_FFFF { return }
                let available = fileSize - body
                if size > available + tolerance {
                    throw .unreadable(detail: "truncated: data chunk declares \(size) bytes, the file holds \(available)")
                }
                return
            }
            // RIFF chunks are padded to an even size (the pad byte is not counted in `size`).
            offset = body + size + (size & 1)
        }
    }
}
