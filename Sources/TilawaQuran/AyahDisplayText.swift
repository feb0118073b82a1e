/// An ayah's text prepared for display or alignment: the basmala Tanzil prefixes to ayah 1
/// of a surah split from the ayah itself.
///
/// Tanzil's text writes the basmala at the start of ayah 1 of every surah except 1 (where
/// the basmala *is* ayah 1) and 9 (which has none). It is recited before the surah but is
/// not part of its first ayah, so a reader shows it on a line of its own and an aligner
/// times it apart (as `ayah: 0`). The served `ayahs[].text` keeps the file's text whole;
/// this split is for the page and the aligner.
public struct AyahDisplayText: Sendable, Equatable {
    /// The basmala as the file writes it before this ayah (in surahs 95 and 97 Tanzil
    /// writes its first letter with a shadda, `بِّسْمِ`), or nil when the ayah has none in front.
    public var basmala: String?
    /// The ayah without the basmala; the whole ayah when `basmala` is nil.
    public var text: String

    /// A split made by the caller.
    public init(basmala: String?, text: String) {
        self.basmala = basmala
        self.text = text
    }
}
