import Foundation
import Testing
import TilawaTestSupport
@testable import TilawaAudio

/// The vectorised scans against the plain loops they replace, on awkward lengths and values.
@Suite("Sample scans and waveform peaks")
struct SampleScanTests {
    /// Finite values a decoder can produce, and the edges that matter: both zeros, full scale
    /// and just under it, the clip level, values beyond ±1 (float sources), subnormals, huge.
    static let edges: [Float] = [0, -0.0, 1, -1, 32767.0 / 32768, -32768.0 / 32768, 0.999, -0.999, 0.99899,
                                 1.5, -1.5, 1e-40, -1e-40, .leastNormalMagnitude, 3e38, -3e38, 1.0 / 256, -1.0 / 256]

    static func signal(count: Int, seed: UInt64) -> [Float] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            Bool.random(using: &random) ? edges.randomElement(using: &random)! : Float.random(in: -1.2...1.2, using: &random)
        }
    }

    @Test("Extrema and the clip count equal the scalar loops", arguments: [0, 1, 15, 16, 17, 31, 33, 960, 1023, 4097])
    func extremaAndCount(count: Int) {
        let samples = Self.signal(count: count, seed: UInt64(count) + 1)
        samples.withUnsafeBufferPointer { buffer in
            let (minimum, maximum) = SampleScan.extrema(buffer)
            #expect(minimum == (samples.min() ?? 0))
            #expect(maximum == (samples.max() ?? 0))
            #expect(SampleScan.count(buffer, atLeast: 0.999) == samples.filter { abs($0) >= 0.999 }.count)
            #expect(!SampleScan.containsNonFinite(buffer))
        }
    }

    @Test("Any NaN or infinity is found, wherever it sits", arguments: [Float.nan, .signalingNaN, .infinity, -.infinity, -Float.nan])
    func nonFinite(value: Float) {
        for count in [1, 16, 17, 40] {
            for position in [0, count / 2, count - 1] {
                var samples = Self.signal(count: count, seed: 7)
                samples[position] = value
                #expect(samples.withUnsafeBufferPointer(SampleScan.containsNonFinite), "\(value) at \(position) of \(count)")
            }
        }
    }

    @Test("Waveform peaks equal the per-sample formula, whatever the block sizes", arguments: [1, 7, 960])
    func waveform(samplesPerPixel: Int) {
        let samples = Self.signal(count: 20_000, seed: UInt64(samplesPerPixel))
        var builder = WaveformBuilder(sampleRate: 48_000, samplesPerPixel: samplesPerPixel)
        var random = SeededGenerator(seed: 99)
        var start = 0
        samples.withUnsafeBufferPointer { buffer in
            while start < buffer.count {
                let end = min(buffer.count, start + Int.random(in: 1...2_500, using: &random))
                builder.add(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end
            }
        }
        let peaks = builder.finish()

        // The definition: each sample to 16 bits (floor of ×32768, clamped), then >> 8.
        func eight(_ sample: Float) -> Int8 {
            let sixteen = Swift.min(Swift.max((Double(sample) * 32768).rounded(.down), -32768), 32767)
            return Int8(Int(sixteen) >> 8)
        }
        var expected: [Int8] = []
        for pixel in stride(from: 0, to: samples.count, by: samplesPerPixel) {
            let values = samples[pixel..<min(samples.count, pixel + samplesPerPixel)].map(eight)
            expected += [values.min()!, values.max()!]
        }
        #expect(peaks.length == expected.count / 2)
        #expect(peaks.data == expected)
    }
}
