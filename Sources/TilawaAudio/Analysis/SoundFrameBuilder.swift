import CFFmpeg
import Foundation
import TilawaCore

/// Builds `SoundFrames` from a 48 kHz stream: each 20 ms frame (960 samples, the speech
/// detector's) under a Hann window, zero-padded to 1024, through libavutil's real FFT
/// (`av_tx`, SIMD), its power summed into `SoundFrames.bandEdges`.
///
/// About 1 % of what Opus encoding costs a second of audio. Not `Sendable`: one builder
/// belongs to one decode.
final class SoundFrameBuilder {
    static let frameLength = 960
    static let transformLength = 1024
    /// Added to every power before its log, far under any microphone's noise.
    static let powerFloor: Float = 1e-11

    private var context: OpaquePointer?
    private let transform: av_tx_fn
    private let input: UnsafeMutablePointer<Float>
    private let output: UnsafeMutablePointer<AVComplexFloat>
    private let window: [Float]
    /// The bins of each band (contiguous: together they are the loudness's 100–11025 Hz).
    private let bands: [Range<Int>]
    private var powers: [Float]
    private var filled = 0
    private var values: [Float] = []

    /// A builder for a `sampleRate` stream; nil when libavutil cannot make the transform (the
    /// recording is then checked by its pauses alone).
    init?(sampleRate: Int = Int(AudioDecoder.outputSampleRate)) {
        guard sampleRate == Int(AudioDecoder.outputSampleRate) else { return nil }
        var context: OpaquePointer?
        var transform: av_tx_fn?
        var scale: Float = 1
        guard av_tx_init(&context, &transform, AV_TX_FLOAT_RDFT, 0, Int32(Self.transformLength), &scale, 0) == 0,
              let context, let transform,
              let input = av_malloc(Self.transformLength * MemoryLayout<Float>.size),
              let output = av_malloc((Self.transformLength / 2 + 1) * MemoryLayout<AVComplexFloat>.size) else {
            av_tx_uninit(&context)
            return nil
        }
        self.context = context
        self.transform = transform
        self.input = input.bindMemory(to: Float.self, capacity: Self.transformLength)
        self.output = output.bindMemory(to: AVComplexFloat.self, capacity: Self.transformLength / 2 + 1)
        self.input.initialize(repeating: 0, count: Self.transformLength)
        window = (0..<Self.frameLength).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(Self.frameLength))) }
        let binHertz = Double(sampleRate) / Double(Self.transformLength)
        let bin = { (hertz: Double) in Int((hertz / binHertz).rounded(.up)) }
        let edges = SoundFrames.bandEdges.map(bin)
        bands = zip(edges, edges.dropFirst()).map { $0..<$1 }
        powers = Array(repeating: 0, count: bands.count)
    }

    deinit {
        av_tx_uninit(&context)
        av_free(input)
        av_free(output)
    }

    func add(_ block: UnsafeBufferPointer<Float>) {
        var start = 0
        while start < block.count {
            let take = min(Self.frameLength - filled, block.count - start)
            for offset in 0..<take {
                input[filled + offset] = block[start + offset] * window[filled + offset]
            }
            filled += take
            start += take
            if filled == Self.frameLength { closeFrame() }
        }
    }

    private func closeFrame() {
        // The tail past the frame stays zero: only the first `frameLength` samples are ever written.
        if filled < Self.frameLength { (input + filled).update(repeating: 0, count: Self.frameLength - filled) }
        transform(context, output, input, MemoryLayout<AVComplexFloat>.size)
        var total: Float = 0
        for (slot, band) in bands.enumerated() {
            var power: Float = 0
            for index in band {
                power += output[index].re * output[index].re + output[index].im * output[index].im
            }
            powers[slot] = power
            total += power
        }
        let loudness = log(total + Self.powerFloor)
        for power in powers { values.append(log(power + Self.powerFloor) - loudness) }
        values.append(loudness)
        filled = 0
    }

    /// The frames of everything added; a last partial frame counts when at least half a frame
    /// long, as the speech detector's does.
    func finish() -> SoundFrames {
        if filled * 2 >= Self.frameLength { closeFrame() }
        filled = 0
        return SoundFrames(values: values)
    }
}
