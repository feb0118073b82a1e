import Foundation

/// Why an annotation is refused for its content; `code` is stable, `message` one sentence.
public enum AnnotationRefusal: Error, Sendable, Equatable {
    case unknownKind(String)
    case surahAndAyahTogether
    case unknownAyah(surah: Int, ayah: Int)
    case atSecondsOutOfRange(Double, durationSeconds: Double)
    case textTooLong(Int, maximum: Int)
    case textMissing

    public var code: String {
        switch self {
        case .unknownKind: "invalid_kind"
        case .surahAndAyahTogether: "surah_and_ayah_together"
        case .unknownAyah: "unknown_ayah"
        case .atSecondsOutOfRange: "at_seconds_out_of_range"
        case .textTooLong: "text_too_long"
        case .textMissing: "text_missing"
        }
    }

    public var message: String {
        switch self {
        case let .unknownKind(kind):
            "\"\(kind)\" is not a kind of annotation; use one of \(AnnotationKind.allCases.map(\.rawValue).joined(separator: ", "))."
        case .surahAndAyahTogether:
            "Give surah and ayah together, or neither."
        case let .unknownAyah(surah, ayah):
            AyahCounts.count(surah: surah).map { "Surah \(surah) has ayahs 1 to \($0) (0 for the basmala before it); there is no ayah \(ayah)." }
                ?? "There is no surah \(surah); surahs are numbered 1 to 114."
        case let .atSecondsOutOfRange(at, duration):
            "at_seconds must be within the recording, 0 to \(String(format: "%.1f", duration)) seconds; \(at.isFinite ? String(format: "%.1f", at) : "\(at)") is not."
        case let .textTooLong(count, maximum):
            "An annotation's note has at most \(maximum) characters; this one has \(count)."
        case .textMissing:
            "Write a short note (text), or record a spoken correction."
        }
    }
}
