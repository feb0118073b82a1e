#if canImport(Glibc)
import Glibc
#endif

/// Why a recording ended.
public enum CaptureStopReason: String, Sendable, Codable, Equatable {
    /// It reached `--max-seconds`.
    case maxDuration = "max_duration"
    /// `--stop-after-silence` seconds of silence followed the speech.
    case silence
    /// Ctrl-C was pressed once.
    case interrupted
}
