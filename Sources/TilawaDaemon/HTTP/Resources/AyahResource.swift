import TilawaQuran
import TilawaStore

/// One ayah of a passage as the API shows it (DESIGN §9): `{surah, ayah, text}`, the same
/// shape on the timeline's weeks and EOC and on a submission.
///
/// `text` is Tanzil's Uthmani text verbatim (Tanzil Project, tanzil.net, CC BY 3.0), so
/// ayah 1 of a surah other than 1 and 9 starts with the basmala Tanzil prefixes to it;
/// clients that show the basmala apart split it (`QuranText.displayText` does it here).
/// On a submission whose recording was aligned, each entry has `start_seconds` and
/// `end_seconds`, and an isti'adha or basmala recited before a surah is an entry of its own
/// with `ayah` 0 and `opening` saying which. An ayah recited without a time of its own (run
/// into the one before it, whose times cover both) is listed in its place without times.
struct AyahResource: Encodable, Sendable, Equatable {
    /// What an `ayah` 0 entry is (`opening`).
    enum Opening: String, Encodable, Sendable {
        case istiadha, basmala
    }

    var surah: Int
    var ayah: Int
    var text: String
    var startSeconds: Double?
    var endSeconds: Double?
    var opening: Opening?

    init(_ ayah: QuranAyah) {
        surah = ayah.surah
        self.ayah = ayah.ayah
        text = ayah.text
    }

    init(surah: Int, ayah: Int, text: String, startSeconds: Double?, endSeconds: Double?, opening: Opening? = nil) {
        self.surah = surah
        self.ayah = ayah
        self.text = text
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.opening = opening
    }

    /// The ayahs of a stored range list (`1:1-7; 114:1-6`) with their text; empty for none.
    static func list(_ ranges: String?) -> [AyahResource] {
        QuranText.uthmani.ayahs(inList: ranges).map(AyahResource.init)
    }

    /// A submission's ayahs: with times when `markers` were found for the passage `ranges`
    /// as it is now, and otherwise without, with the reason (nil while not encoded yet).
    static func list(_ ranges: String?, markers: AyahMarkers?) -> (ayahs: [AyahResource], unavailableReason: String?) {
        let plain = list(ranges)
        guard let markers, !plain.isEmpty else { return (plain, nil) }
        guard markers.ayahs == ranges else { return (plain, "passage_changed") }
        if let reason = markers.unavailableReason { return (plain, reason) }
        let quran = QuranText.uthmani
        let timed = markers.markers.compactMap { marker -> AyahResource? in
            let text: String? = switch marker.preface {
            case .istiadha: AyahMarking.istiadha
            case .basmala: quran.displayText(surah: marker.surah, ayah: 1)?.basmala ?? quran.ayah(surah: 1, ayah: 1)
            case nil: quran.ayah(surah: marker.surah, ayah: marker.ayah)
            }
            let opening: Opening? = switch marker.preface {
            case .istiadha: .istiadha
            case .basmala: .basmala
            case nil: nil
            }
            return text.map { AyahResource(surah: marker.surah, ayah: marker.ayah, text: $0,
                                           startSeconds: marker.startSeconds, endSeconds: marker.endSeconds, opening: opening) }
        }
        // An ayah recited without a time of its own stays in its place, without times.
        let missing = Set(markers.notFound.map { "\($0.surah):\($0.ayah)" })
        guard !missing.isEmpty else { return (timed, nil) }
        var listed: [AyahResource] = []
        for entry in timed {
            listed.append(entry)
            guard entry.ayah > 0 else { continue }
            var next = entry.ayah + 1
            while missing.contains("\(entry.surah):\(next)"), let plainEntry = plain.first(where: { $0.surah == entry.surah && $0.ayah == next }) {
                listed.append(plainEntry)
                next += 1
            }
        }
        return (listed, nil)
    }
}
