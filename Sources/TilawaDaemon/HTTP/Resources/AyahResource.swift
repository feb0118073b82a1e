import TilawaQuran

/// One ayah of a passage as the API shows it (DESIGN §9): `{surah, ayah, text}`, the same
/// shape on the timeline's weeks and EOC and on a submission.
///
/// `text` is Tanzil's Uthmani text verbatim (Tanzil Project, tanzil.net, CC BY 3.0), so
/// ayah 1 of a surah other than 1 and 9 starts with the basmala Tanzil prefixes to it;
/// clients that show the basmala apart split it (`QuranText.displayText` does it here).
/// `start_seconds`, `end_seconds` and the submission's `ayahs_unavailable_reason` are
/// reserved for the alignment of a recording to its ayahs and are not sent yet.
struct AyahResource: Encodable, Sendable, Equatable {
    var surah: Int
    var ayah: Int
    var text: String

    init(_ ayah: QuranAyah) {
        surah = ayah.surah
        self.ayah = ayah.ayah
        text = ayah.text
    }

    /// The ayahs of a stored range list (`1:1-7; 114:1-6`) with their text; empty for none.
    static func list(_ ranges: String?) -> [AyahResource] {
        QuranText.uthmani.ayahs(inList: ranges).map(AyahResource.init)
    }
}
