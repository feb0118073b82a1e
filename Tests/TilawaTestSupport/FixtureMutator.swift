import Foundation

/// Mutated copies of the audio fixtures for fuzzing: bit flips, truncations, lying 32-bit
/// fields (chunk sizes, sample counts) and spliced headers. Case `index` is always the same
/// bytes, so a failure names a case that can be reproduced.
public enum FixtureMutator {
    /// The fixtures mutated, one per case in turn: every container and codec the decoder meets.
    public static let sources = [
        "speech_u8_8k.wav", "speech_s32_8k.wav", "too_short.wav", "speech.mp3", "speech.opus", "speech.m4a",
        "speech.ogg", "speech.webm", "speech.flac", "speech.caf", "speech_extensible_4ch_s16_8k.wav",
        "speech_list_chunk_odd.wav",
    ]

    /// The mutation of case `index`: its name (case number and source fixture) and its bytes.
    public static func mutate(_ index: Int) throws -> (name: String, data: Data) {
        var random = SeededGenerator(seed: UInt64(index) &* 0x9E37_79B9)
        let source = sources[index % sources.count]
        var bytes = [UInt8](try Data(contentsOf: fixturesDirectory.appendingPathComponent(source)))
        switch index / sources.count % 4 {
        case 0:
            // Flip bits, mostly in the first kilobytes where the headers are.
            for _ in 0..<Int.random(in: 1...24, using: &random) {
                let limit = Bool.random(using: &random) ? min(bytes.count, 4_096) : bytes.count
                bytes[Int.random(in: 0..<limit, using: &random)] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            }
        case 1:
            bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
        case 2:
            // A 32-bit little-endian field in the first 512 bytes set to a random (often huge) value.
            let offset = Int.random(in: 0..<(min(bytes.count, 512) - 4), using: &random)
            let value = UInt32.random(in: 0...UInt32.max, using: &random)
            for byte in 0..<4 { bytes[offset + byte] = UInt8((value >> (8 * UInt32(byte))) & 0xFF) }
        default:
            // The head of one file spliced onto the body of another.
            let other = [UInt8](try Data(contentsOf: fixturesDirectory.appendingPathComponent(sources[(index + 5) % sources.count])))
            let cut = Int.random(in: 1..<min(bytes.count, 2_048), using: &random)
            bytes = Array(bytes.prefix(cut)) + Array(other.dropFirst(Int.random(in: 0..<other.count, using: &random)))
        }
        return ("case\(index)-\(source)", Data(bytes))
    }

    /// How many cases a fuzz test runs: `FUZZ_CASES` when set (`make soak`), else `standard`.
    public static func caseCount(standard: Int) -> Int {
        ProcessInfo.processInfo.environment["FUZZ_CASES"].flatMap(Int.init) ?? standard
    }
}
