import Foundation

/// Builds `WaveformPeaks` from a stream of blocks in constant memory per pixel.
struct WaveformBuilder {
    let sampleRate: Int
    let samplesPerPixel: Int
    private var data: [Int8] = []
    private var low: Int = 0
    private var high: Int = 0
    private var filled = 0

    init(sampleRate: Int, samplesPerPixel: Int) {
        self.sampleRate = sampleRate
        self.samplesPerPixel = max(1, samplesPerPixel)
    }

    mutating func add(_ block: UnsafeBufferPointer<Float>) {
        for sample in block {
            let scaled = Int((sample * 32768).rounded(.down)).clamped(to: -32768...32767) >> 8
            if filled == 0 {
                low = scaled
                high = scaled
            } else {
                low = min(low, scaled)
                high = max(high, scaled)
            }
            filled += 1
            if filled == samplesPerPixel { emit() }
        }
    }

    private mutating func emit() {
        data.append(Int8(low))
        data.append(Int8(high))
        filled = 0
    }

    mutating func finish() -> WaveformPeaks {
        if filled > 0 { emit() }
        return WaveformPeaks(
            sampleRate: sampleRate, samplesPerPixel: samplesPerPixel, length: data.count / 2, data: data)
    }
}
