import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes a 16-bit mono PCM WAV file as samples arrive, so memory stays flat however long
/// the recording runs.
///
/// The RIFF and `data` sizes are written as 0 first and filled in by `finish()`; a file
/// that was never finished is a leftover for the staging sweep, not a recording. The file
/// is created exclusively (it must not exist) with mode 0640.
///
/// Not `Sendable`: one writer belongs to one capture loop.
public final class WAVFileWriter {
    /// Where the file is.
    public let path: String
    /// Its sample rate.
    public let sampleRate: Int
    /// Samples written so far.
    public private(set) var frames = 0

    private var descriptor: Int32
    private var buffer: [UInt8] = []

    /// Creates `path` and writes the header.
    public init(path: String, sampleRate: Int = AudioCaptureDevice.sampleRate) throws(CaptureError) {
        self.path = path
        self.sampleRate = sampleRate
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw .io("cannot create \(path): \(Self.systemError())") }
        do {
            try writeAll(Self.header(sampleRate: sampleRate, dataBytes: 0))
        } catch {
            close(descriptor)
            unlink(path)
            throw error
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends samples in −1…1 as 16-bit integers (`x · 32768`, rounded and clamped), so
    /// samples that came from 16-bit integers are written back exactly.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(CaptureError) {
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(samples.count * 2)
        for sample in samples {
            let scaled = (sample * 32768).rounded()
            let value = UInt16(bitPattern: Int16(max(-32768, min(32767, scaled))))
            buffer.append(UInt8(truncatingIfNeeded: value))
            buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        try writeAll(buffer)
        frames += samples.count
    }

    /// Fills in the header's sizes, flushes the file to disk and closes it.
    public func finish() throws(CaptureError) {
        let header = Self.header(sampleRate: sampleRate, dataBytes: frames * 2)
        let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw .io("cannot finish \(path): \(Self.systemError())") }
        guard fsync(descriptor) == 0 else { throw .io("cannot flush \(path): \(Self.systemError())") }
        close(descriptor)
        descriptor = -1
    }

    /// Closes and removes the file (an aborted or failed recording).
    public func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }

    private func writeAll(_ bytes: [UInt8]) throws(CaptureError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { Glibc.write(descriptor, $0 + offset, raw.count - offset) } ?? 0
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .io("cannot write \(path): \(Self.systemError())")
            }
            offset += written
        }
    }

    /// The 44-byte canonical header of 16-bit mono PCM.
    static func header(sampleRate: Int, dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func text(_ value: String) { bytes.append(contentsOf: Array(value.utf8)) }
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(clamping: value).littleEndian) { bytes.append(contentsOf: $0) } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(clamping: value).littleEndian) { bytes.append(contentsOf: $0) } }
        text("RIFF"); u32(36 + dataBytes); text("WAVE")
        text("fmt "); u32(16); u16(1); u16(1); u32(sampleRate); u32(sampleRate * 2); u16(2); u16(16)
        text("data"); u32(dataBytes)
        return bytes
    }

    private static func systemError() -> String { String(cString: strerror(errno)) }
}
