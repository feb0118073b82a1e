import Foundation

/// Why a recording is refused for its audio, with a stable code and a sentence a student can act on.
///
/// The codes are part of the external contract (DESIGN §2): `empty`, `unreadable`,
/// `unsupported_format`, `too_short`, `too_long`, `silent`, `too_quiet`. A rejected
/// recording never uses an attempt.
public enum AudioRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file has no bytes, or decodes to no samples at all.
    case empty
    /// The file is recognised as audio but is damaged or incomplete.
    case unreadable(detail: String)
    /// The file is not audio Tilawa can decode (an image, text, random bytes, no audio stream).
    case unsupportedFormat(detail: String)
    /// Shorter than the minimum duration.
    case tooShort(seconds: Double, minimum: Double)
    /// Longer than the maximum duration.
    case tooLong(seconds: Double, maximum: Double)
    /// Too little speech: under the minimum seconds or the minimum share of the recording.
    case silent(speechSeconds: Double, minimumSeconds: Double)
    /// Integrated loudness below the minimum, or no measurable loudness at all.
    case tooQuiet(loudnessLUFS: Double?, minimum: Double)

    /// The stable reason code.
    public var code: String {
        switch self {
        case .empty: "empty"
        case .unreadable: "unreadable"
        case .unsupportedFormat: "unsupported_format"
        case .tooShort: "too_short"
        case .tooLong: "too_long"
        case .silent: "silent"
        case .tooQuiet: "too_quiet"
        }
    }

    /// One line a student can act on.
    public var message: String {
        switch self {
        case .empty:
            return "The recording is empty: nothing was recorded. Please record again."
        case .unreadable:
            return "The recording could not be read because the file is damaged or incomplete. Please upload it again."
        case .unsupportedFormat:
            return "This file is not an audio recording Tilawa can read. Please send the recording made by the app, or a WAV, MP3, M4A, Ogg, FLAC or WebM file."
        case let .tooShort(seconds, minimum):
            return "The recording is \(Self.duration(seconds)) long; it must be at least \(Self.duration(minimum)). Please record the whole passage."
        case let .tooLong(seconds, maximum):
            return "The recording is \(Self.duration(seconds)) long; the limit is \(Self.duration(maximum)). Please record only this week's passage."
        case let .silent(speech, minimum):
            return "Only \(Self.duration(speech)) of recitation could be heard (at least \(Self.duration(minimum)) is needed). Check the microphone and recite close to it."
        case let .tooQuiet(loudness, _):
            let level = loudness.map { String(format: " (%.0f LUFS)", $0) } ?? ""
            return "The recording is too quiet to hear\(level). Move closer to the microphone and record again."
        }
    }

    /// Technical detail for logs and operators; empty for rejections that are fully described by their figures.
    public var detail: String {
        switch self {
        case let .unreadable(detail), let .unsupportedFormat(detail): detail
        default: ""
        }
    }

    public var description: String { "\(code): \(message)" }

    /// Formats seconds the way a student reads them: `3 s`, `12.5 s`, `2 min 05 s`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 {
            let rounded = (seconds * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded)) s" : String(format: "%.1f s", rounded)
        }
        let whole = Int(seconds.rounded())
        let minutes = whole / 60, rest = whole % 60
        return rest == 0 ? "\(minutes) min" : String(format: "%d min %02d s", minutes, rest)
    }
}
