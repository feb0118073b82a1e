import Foundation

/// The live line `tilawa capture` shows: elapsed time, a level bar, the peak and a clip
/// indicator, and whether speech has been heard yet.
///
/// ```
/// 01:23 [#####################.........]  -17.8 dBFS  CLIP  recording
/// ```
///
/// Levels arrive every block (50 a second); the meter keeps the highest peak and any clip
/// since it last drew, so a short peak is never lost between draws. On a terminal
/// (`.live`) it redraws one line in place with `\r` at most every `liveInterval`; elsewhere
/// (`.plain`: a log, a pipe) it prints a whole line about every `plainInterval`. The times
/// passed as `now` are monotonic seconds, so the caller owns the clock.
public struct CaptureMeter: Sendable {
    /// How lines are drawn.
    public enum Style: Sendable, Equatable {
        /// Redraw one line in place (a terminal).
        case live
        /// One line per interval (anything else).
        case plain
    }

    /// The bar spans −60…0 dBFS.
    public static let floorDBFS = -60.0
    /// Characters in the bar.
    public static let barWidth = 30

    /// How lines are drawn.
    public let style: Style
    /// Least time between two redraws on a terminal.
    public let liveInterval: Double
    /// Time between two plain lines.
    public let plainInterval: Double

    private var lastDrawn: Double?
    private var heldPeak: Double?
    private var heldClip = false
    private var latest: CaptureLevel?
    private var pending = false

    /// A meter drawing in `style`.
    public init(style: Style, liveInterval: Double = 0.1, plainInterval: Double = 1) {
        self.style = style
        self.liveInterval = liveInterval
        self.plainInterval = plainInterval
    }

    /// Takes the level of the latest block; returns the text to write to the terminal now,
    /// if it is time to draw.
    public mutating func update(_ level: CaptureLevel, now: Double) -> String? {
        if let peak = level.peakDBFS { heldPeak = max(heldPeak ?? peak, peak) }
        heldClip = heldClip || level.clipped
        latest = level
        pending = true
        let interval = style == .live ? liveInterval : plainInterval
        if let lastDrawn, now - lastDrawn < interval { return nil }
        lastDrawn = now
        return draw()
    }

    /// The text that ends the meter: the last state if it was not drawn yet, and on a
    /// terminal the newline that releases the line. Nil when nothing was ever drawn.
    public mutating func finish() -> String? {
        guard latest != nil else { return nil }
        let last = pending ? draw() : nil
        switch style {
        case .live: return (last ?? "") + "\n"
        case .plain: return last
        }
    }

    private mutating func draw() -> String? {
        guard let latest else { return nil }
        let text = Self.line(elapsedSeconds: latest.elapsedSeconds, peakDBFS: heldPeak, clipped: heldClip,
                             speechHasBegun: latest.speechHasBegun)
        heldPeak = nil
        heldClip = false
        pending = false
        switch style {
        // Carriage return, the line, then erase whatever a longer previous line left.
        case .live: return "\r" + text + "\u{1B}[K"
        case .plain: return text + "\n"
        }
    }

    /// One meter line, without line control.
    public static func line(elapsedSeconds: Double, peakDBFS: Double?, clipped: Bool, speechHasBegun: Bool) -> String {
        let seconds = max(0, Int(elapsedSeconds))
        let elapsed = String(format: "%02d:%02d", seconds / 60, seconds % 60)
        let level = peakDBFS.map { max($0, floorDBFS) } ?? floorDBFS
        let filled = Int(((level - floorDBFS) / -floorDBFS * Double(barWidth)).rounded())
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        let peak = peakDBFS.map { String(format: "%6.1f dBFS", $0) } ?? "  -inf dBFS"
        let state = speechHasBegun ? "recording" : "listening…"
        return "\(elapsed) [\(bar)] \(peak)  \(clipped ? "CLIP" : "    ")  \(state)"
    }
}
