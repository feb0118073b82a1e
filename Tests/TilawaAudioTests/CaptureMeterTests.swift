import Testing
import TilawaAudio

private func level(_ seconds: Double, _ peak: Double?, clipped: Bool = false, speech: Bool = true) -> CaptureLevel {
    CaptureLevel(elapsedSeconds: seconds, peakDBFS: peak, clipped: clipped, speechHasBegun: speech)
}

@Suite("Capture meter")
struct CaptureMeterTests {
    @Test("A line: mm:ss, a 30-character bar for -60…0 dBFS, the peak, CLIP, listening or recording")
    func line() {
        #expect(CaptureMeter.line(elapsedSeconds: 83.9, peakDBFS: -17.8, clipped: false, speechHasBegun: true)
            == "01:23 [#####################.........]  -17.8 dBFS        recording")
        #expect(CaptureMeter.line(elapsedSeconds: 0, peakDBFS: nil, clipped: false, speechHasBegun: false)
            == "00:00 [..............................]   -inf dBFS        listening…")
        #expect(CaptureMeter.line(elapsedSeconds: 900, peakDBFS: -0.0, clipped: true, speechHasBegun: true)
            == "15:00 [##############################]   -0.0 dBFS  CLIP  recording")
        #expect(CaptureMeter.line(elapsedSeconds: 5, peakDBFS: -75, clipped: false, speechHasBegun: true)
            .hasPrefix("00:05 [..............................]  -75.0 dBFS"))
    }

    @Test("On a terminal: redrawn in place at most every 100 ms, with the highest peak and any clip since the last draw")
    func live() {
        var meter = CaptureMeter(style: .live)
        let first = meter.update(level(0.02, -30), now: 10)
        #expect(first?.hasPrefix("\r00:00 [") == true)
        #expect(first?.hasSuffix("\u{1B}[K") == true)
        #expect(meter.update(level(0.04, -3, clipped: true), now: 10.05) == nil)
        let next = meter.update(level(0.06, -40), now: 10.11)
        #expect(next == "\r" + CaptureMeter.line(elapsedSeconds: 0.06, peakDBFS: -3, clipped: true, speechHasBegun: true) + "\u{1B}[K")
        #expect(meter.update(level(0.08, -40), now: 10.12) == nil)
        #expect(meter.finish() == "\r" + CaptureMeter.line(elapsedSeconds: 0.08, peakDBFS: -40, clipped: false, speechHasBegun: true)
            + "\u{1B}[K\n", "the last state is drawn, then the line is released")
    }

    @Test("Elsewhere: a plain line about once a second")
    func plain() {
        var meter = CaptureMeter(style: .plain)
        #expect(meter.update(level(0.02, -30, speech: false), now: 0)
            == CaptureMeter.line(elapsedSeconds: 0.02, peakDBFS: -30, clipped: false, speechHasBegun: false) + "\n")
        #expect(meter.update(level(0.5, -20), now: 0.5) == nil)
        #expect(meter.update(level(1.0, -25), now: 1.0)
            == CaptureMeter.line(elapsedSeconds: 1.0, peakDBFS: -20, clipped: false, speechHasBegun: true) + "\n")
        #expect(meter.finish() == nil, "nothing new since the last line")
    }

    @Test("A meter that never saw a level draws nothing")
    func empty() {
        var meter = CaptureMeter(style: .live)
        #expect(meter.finish() == nil)
    }
}
