import Foundation

/// What a coach sends to mark a moment of a recording: where (`atSeconds`, and optionally
/// the ayah), what kind of mistake, and a short note. Pure: `validated(durationSeconds:)`
/// applies every rule and names the first one broken.
public struct AnnotationDraft: Sendable, Equatable {
    /// The longest note, in characters once trimmed.
    public static let maximumTextLength = 500

    public var atSeconds: Double
    public var surah: Int?
    public var ayah: Int?
    public var kind: String
    public var text: String

    public init(atSeconds: Double, surah: Int?, ayah: Int?, kind: String, text: String) {
        self.atSeconds = atSeconds
        self.surah = surah
        self.ayah = ayah
        self.kind = kind
        self.text = text
    }

    /// The annotation as it will be stored, or why not. `durationSeconds` is the recording's;
    /// `requiresText` is false when a spoken correction carries the content.
    public func validated(durationSeconds: Double, requiresText: Bool) -> Result<ValidAnnotation, AnnotationRefusal> {
        guard let kind = AnnotationKind(rawValue: kind) else { return .failure(.unknownKind(kind)) }
        switch (surah, ayah) {
        case (nil, nil):
            break
        case let (surah?, ayah?):
            guard AyahCounts.contains(surah: surah, ayah: ayah) else { return .failure(.unknownAyah(surah: surah, ayah: ayah)) }
        default:
            return .failure(.surahAndAyahTogether)
        }
        guard atSeconds.isFinite, atSeconds >= 0, atSeconds <= durationSeconds else {
            return .failure(.atSecondsOutOfRange(atSeconds, durationSeconds: durationSeconds))
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count > Self.maximumTextLength { return .failure(.textTooLong(trimmed.count, maximum: Self.maximumTextLength)) }
        if requiresText, trimmed.isEmpty { return .failure(.textMissing) }
        return .success(ValidAnnotation(atSeconds: atSeconds, surah: surah, ayah: ayah, kind: kind, text: trimmed))
    }
}

/// An annotation whose every field passed `AnnotationDraft.validated`.
public struct ValidAnnotation: Sendable, Equatable {
    public var atSeconds: Double
    public var surah: Int?
    public var ayah: Int?
    public var kind: AnnotationKind
    public var text: String
}

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
