/// One recording from a capture device to a WAV file, until something says stop.
///
/// The loop reads 20 ms blocks from the device, writes each to the file at once (memory
/// stays flat), reports its level to the meter, and asks `CaptureStopDetector` whether to
/// go on; between blocks it reads the Ctrl-C count. The file is 16-bit mono 48 kHz PCM,
/// bit-exact with what ALSA delivered.
///
/// Not `Sendable`: it drives one non-`Sendable` device on the caller's thread.
public final class CaptureSession {
    /// Limits of a recording.
    public struct Options: Sendable, Equatable {
        /// The longest recording, in seconds (900: the programme's maximum).
        public var maxSeconds: Double
        /// Seconds of silence, once speech has begun, after which it stops; nil: never.
        public var stopAfterSilenceSeconds: Double?
        /// Samples per read (960 = 20 ms).
        public var blockFrames: Int

        /// Options with the given limits.
        public init(maxSeconds: Double = 900, stopAfterSilenceSeconds: Double? = nil, blockFrames: Int = 960) {
            self.maxSeconds = maxSeconds
            self.stopAfterSilenceSeconds = stopAfterSilenceSeconds
            self.blockFrames = blockFrames
        }
    }

    /// How a recording ended.
    public enum Outcome: Sendable, Equatable {
        /// The file is complete and on disk.
        case finished(CaptureSummary)
        /// Ctrl-C twice: the file was removed.
        case aborted(elapsedSeconds: Double)
    }

    private let device: AudioCaptureDevice
    private let options: Options

    /// A session reading from `device`.
    public init(device: AudioCaptureDevice, options: Options) {
        self.device = device
        self.options = options
    }

    /// Records into a new file at `path` until the detector, the limit or Ctrl-C stops it.
    ///
    /// - Parameters:
    ///   - interrupts: how many times Ctrl-C has been pressed so far (read between blocks).
    ///   - meter: called after each block with its level.
    /// - Throws: `CaptureError`: the file cannot be written (`io_error`) or the device
    ///   fails (`device_error`); the file is removed either way.
    public func record(
        to path: String, interrupts: () -> Int, meter: (CaptureLevel) -> Void
    ) throws(CaptureError) -> Outcome {
        let writer = try WAVFileWriter(path: path, sampleRate: AudioCaptureDevice.sampleRate)
        var detector = CaptureStopDetector(sampleRate: AudioCaptureDevice.sampleRate, maxSeconds: options.maxSeconds,
                                           stopAfterSilenceSeconds: options.stopAfterSilenceSeconds)
        var block: [Float] = []
        block.reserveCapacity(options.blockFrames)
        var peak: Double?
        var clippedBlocks = 0
        do {
            while true {
                if case .abort? = CaptureStopDetector.decision(forInterrupts: interrupts()) {
                    writer.discard()
                    return .aborted(elapsedSeconds: detector.elapsedSeconds)
                }
                try device.read(into: &block, frames: options.blockFrames)
                let decision = try block.withUnsafeBufferPointer { (all) throws(CaptureError) -> CaptureStopDetector.Decision in
                    let (kept, decision) = detector.add(all)
                    let recorded = UnsafeBufferPointer(rebasing: all[..<kept])
                    try writer.write(recorded)
                    let level = CaptureLevel(block: recorded, elapsedSeconds: detector.elapsedSeconds,
                                             speechHasBegun: detector.speechHasBegun)
                    if let blockPeak = level.peakDBFS { peak = max(peak ?? blockPeak, blockPeak) }
                    if level.clipped { clippedBlocks += 1 }
                    meter(level)
                    return decision
                }
                let next = CaptureStopDetector.decision(forInterrupts: interrupts()) ?? decision
                switch next {
                case .continue:
                    continue
                case .abort:
                    writer.discard()
                    return .aborted(elapsedSeconds: detector.elapsedSeconds)
                case let .stop(reason):
                    try writer.finish()
                    return .finished(CaptureSummary(
                        path: path, device: device.name, durationSeconds: detector.elapsedSeconds, reason: reason,
                        speechDetected: detector.speechHasBegun, peakDBFS: peak, clippedBlocks: clippedBlocks,
                        overruns: device.overruns))
                }
            }
        } catch {
            writer.discard()
            throw error
        }
    }
}
