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
