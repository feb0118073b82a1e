/// One ayah with its text exactly as Tanzil's file has it.
public struct QuranAyah: Sendable, Hashable {
    /// The surah, 1…114.
    public var surah: Int
    /// The ayah within the surah, 1 or more.
    public var ayah: Int
    /// The text, verbatim (with Tanzil's basmala on ayah 1 of surahs other than 1 and 9).
    public var text: String

    /// An ayah and its text.
    public init(surah: Int, ayah: Int, text: String) {
        self.surah = surah
        self.ayah = ayah
        self.text = text
    }
}
