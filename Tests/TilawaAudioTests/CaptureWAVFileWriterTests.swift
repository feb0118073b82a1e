import Foundation
import Testing
import TilawaAudio
import TilawaTestSupport

@Suite("Capture WAV file writer")
struct CaptureWAVFileWriterTests {
    @Test("Samples from 16-bit integers come back exactly through FFmpeg, header sizes filled in")
    func roundTrip() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("take.wav")
        let integers: [Int16] = (0..<48_000).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        let samples = integers.map { Float($0) / 32768 }
        let writer = try WAVFileWriter(path: path)
        try samples[..<1000].withUnsafeBufferPointer { try writer.write($0) }
        try samples[1000...].withUnsafeBufferPointer { try writer.write($0) }
        try writer.finish()
        #expect(writer.frames == 48_000)

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 44 + 96_000)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        #expect(u32(4) == 36 + 96_000 && u32(40) == 96_000 && u32(24) == 48_000)

        var decoded: [Float] = []
        _ = try AudioDecoder(path: path).decode { decoded.append(contentsOf: $0) }
        #expect(decoded == samples)
    }

    @Test("Out-of-range samples are clamped; an existing file is never overwritten; discard removes the file")
    func clampAndDiscard() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path("take.wav")
        let writer = try WAVFileWriter(path: path)
        try [Float(1.5), -2].withUnsafeBufferPointer { try writer.write($0) }
        try writer.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[44...]) == [0xFF, 0x7F, 0x00, 0x80])

        #expect(throws: CaptureError.self) { try WAVFileWriter(path: path) }
        let second = try WAVFileWriter(path: scratch.path("other.wav"))
        second.discard()
        #expect(!FileManager.default.fileExists(atPath: scratch.path("other.wav")))
    }
}
