import Testing
import TilawaAudio

/// Builds 20 ms frames at given RMS levels: a ±a square wave has RMS a, so the level is
/// exact; nil is digital silence.
private func frames(_ runs: [(dBFS: Double?, count: Int)]) -> [Float] {
    var samples: [Float] = []
    for run in runs {
        let amplitude = run.dBFS.map { Float(pow(10, $0 / 20)) } ?? 0
        for _ in 0..<run.count {
            for index in 0..<960 { samples.append(index % 2 == 0 ? amplitude : -amplitude) }
        }
    }
    return samples
}

/// Feeds `samples` in blocks of `blockSize`; returns the samples kept and the last decision.
private func feed(_ detector: inout CaptureStopDetector, _ samples: [Float], blockSize: Int = 960)
    -> (kept: Int, decision: CaptureStopDetector.Decision) {
    var kept = 0
    var start = 0
    while start < samples.count {
        let end = min(samples.count, start + blockSize)
        let (taken, decision) = samples[start..<end].withUnsafeBufferPointer { detector.add($0) }
        kept += taken
        if decision != .continue { return (kept, decision) }
        start = end
    }
    return (kept, .continue)
}

@Suite("Capture stop detector")
struct CaptureStopDetectorTests {
    @Test("Speech begins after 200 ms of frames at or above -45 dBFS, and not before")
    func speechBegins() {
        var detector = CaptureStopDetector(maxSeconds: 60, stopAfterSilenceSeconds: nil)
        // -44.99: a Float square wave at exactly -45 dBFS may measure a hair under it.
        _ = feed(&detector, frames([(-40, 9), (-60, 1), (-44.99, 9)]))
        #expect(!detector.speechHasBegun, "nine frames, a gap, nine frames: never 200 ms in a row")
        _ = feed(&detector, frames([(-44.99, 1)]))
        #expect(detector.speechHasBegun)
    }

    @Test("Frames between -50 and -45 dBFS never start speech")
    func hysteresisBandIsNotSpeech() {
        var detector = CaptureStopDetector(maxSeconds: 60, stopAfterSilenceSeconds: 0.5)
        let result = feed(&detector, frames([(-47, 100), (nil, 100)]))
        #expect(!detector.speechHasBegun)
        #expect(result.decision == .continue, "silence before speech does not stop the recording")
    }

    @Test("Silence before speech never stops the recording")
    func waitsForSpeech() {
        var detector = CaptureStopDetector(maxSeconds: 60, stopAfterSilenceSeconds: 1)
        #expect(feed(&detector, frames([(nil, 500)])).decision == .continue)
        #expect(feed(&detector, frames([(-70, 500)])).decision == .continue)
    }

    @Test("After speech, the recording stops at the end of the frame that completes the silence",
          arguments: [960, 333, 4800])
    func stopsAfterSilence(blockSize: Int) {
        var detector = CaptureStopDetector(maxSeconds: 60, stopAfterSilenceSeconds: 1)
        let signal = frames([(nil, 25), (-30, 10), (nil, 200)])
        let result = feed(&detector, signal, blockSize: blockSize)
        #expect(result.decision == .stop(.silence))
        #expect(result.kept == (25 + 10 + 50) * 960, "1 s of silence kept after the speech, whatever the block size")
        #expect(detector.elapsedSeconds == 1.7)
    }

    @Test("A frame at or above -50 dBFS restarts the silence count")
    func quietFrameResetsSilence() {
        var detector = CaptureStopDetector(maxSeconds: 60, stopAfterSilenceSeconds: 1)
        let result = feed(&detector, frames([(-30, 10), (nil, 49), (-49, 1), (nil, 49), (-80, 1), (nil, 10)]))
        #expect(result.decision == .stop(.silence))
        #expect(result.kept == (10 + 49 + 1 + 50) * 960, "-80 dBFS is silence; -49 dBFS is not")
    }

    @Test("--max-seconds is exact, inside a block or on its boundary")
    func maximum() {
        var inside = CaptureStopDetector(maxSeconds: 0.05, stopAfterSilenceSeconds: nil)
        let within = feed(&inside, frames([(-20, 10)]))
        #expect(within.decision == .stop(.maxDuration))
        #expect(within.kept == 2400)
        var boundary = CaptureStopDetector(maxSeconds: 0.04, stopAfterSilenceSeconds: 5)
        let onEdge = feed(&boundary, frames([(-20, 10)]))
        #expect(onEdge.decision == .stop(.maxDuration))
        #expect(onEdge.kept == 1920)
        #expect(boundary.elapsedSeconds == 0.04)
    }

    @Test("Ctrl-C: once stops and keeps, twice or more aborts", arguments: [
        (0, nil), (1, CaptureStopDetector.Decision.stop(.interrupted)), (2, .abort), (5, .abort),
    ] as [(Int, CaptureStopDetector.Decision?)])
    func interrupts(count: Int, expected: CaptureStopDetector.Decision?) {
        #expect(CaptureStopDetector.decision(forInterrupts: count) == expected)
    }

    @Test("A block's level: the peak in dBFS, clipping from -0.1 dBFS, nil for digital silence")
    func blockLevel() {
        func level(_ samples: [Float]) -> CaptureLevel {
            samples.withUnsafeBufferPointer { CaptureLevel(block: $0, elapsedSeconds: 1, speechHasBegun: false) }
        }
        #expect(level([0, 0.5, -0.25]).peakDBFS.map { abs($0 - -6.0206) < 0.001 } == true)
        #expect(level([0.99]).clipped, "-0.087 dBFS")
        #expect(!level([-0.98]).clipped, "-0.175 dBFS")
        #expect(level([0, 0]).peakDBFS == nil)
        #expect(!level([0, 0]).clipped)
    }
}

#if canImport(Glibc)
import Glibc
#endif
