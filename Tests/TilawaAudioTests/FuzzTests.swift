import Foundation
import Testing
import TilawaTestSupport

/// Mutated fixtures through `tilawa analyze`, each in its own process with a time budget:
/// a crash shows as a signal, a hang as a timeout, and either fails the case.
///
/// A few hundred cases run in `make test`; `FUZZ_CASES=10000` runs more.
@Suite("Fuzzing the decoder and analysis with mutated fixtures")
struct FuzzTests {
    static let sources = ["speech_u8_8k.wav", "speech_s32_8k.wav", "too_short.wav", "speech.mp3", "speech.opus", "speech.m4a",
                          "speech.ogg", "speech.webm", "speech.flac", "speech.caf", "speech_extensible_4ch_s16_8k.wav",
                          "speech_list_chunk_odd.wav"]

    static var caseCount: Int {
        ProcessInfo.processInfo.environment["FUZZ_CASES"].flatMap(Int.init) ?? 240
    }

    /// The mutation of case `index`: bit flips, truncation, a lying chunk size, or a splice.
    static func mutate(_ index: Int) throws -> (name: String, data: Data) {
        var random = SeededGenerator(seed: UInt64(index) &* 0x9E37_79B9)
        let source = sources[index % sources.count]
        var bytes = [UInt8](try Data(contentsOf: fixturesDirectory.appendingPathComponent(source)))
        let kind = index / sources.count % 4
        switch kind {
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

    @Test("No mutated file crashes, hangs, or answers anything but a verdict")
    func mutatedFixtures() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let total = Self.caseCount
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            var next = 0
            var failures: [String] = []
            func add() throws {
                guard next < total else { return }
                let index = next
                next += 1
                let (name, data) = try Self.mutate(index)
                let path = scratch.path(name)
                try data.write(to: URL(fileURLWithPath: path))
                group.addTask {
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    let result = try runProcess(tilawaBinary, ["analyze", "--json", path], timeout: 30)
                    if result.timedOut { return "\(name): no verdict within 30 s" }
                    if result.signaled { return "\(name): killed by signal \(result.status)" }
                    guard result.status == 0 || result.status == 65 else { return "\(name): exit \(result.status): \(result.stderr)" }
                    guard (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil else { return "\(name): no JSON verdict" }
                    if result.status == 65, result.stderr.split(separator: "\n").count != 1 { return "\(name): stderr is not one line" }
                    return nil
                }
            }
            // Two at a time: one per core.
            try add()
            try add()
            while let outcome = try await group.next() {
                if let outcome { failures.append(outcome) }
                try add()
            }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
    }
}
