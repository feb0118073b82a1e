import Testing
import TilawaCore

@Suite("AnnotationDraft: the rules of a coach's mark")
struct AnnotationDraftTests {
    @Test("The ayah table is the Hafs count: 114 surahs, 6,236 ayahs")
    func ayahCounts() {
        #expect(AyahCounts.counts.count == 114)
        #expect(AyahCounts.counts.reduce(0, +) == 6_236)
        #expect(AyahCounts.contains(surah: 2, ayah: 286) && !AyahCounts.contains(surah: 2, ayah: 287))
        #expect(AyahCounts.contains(surah: 114, ayah: 0) && !AyahCounts.contains(surah: 0, ayah: 1) && !AyahCounts.contains(surah: 1, ayah: -1))
    }

    @Test("Each rule names its code; a valid draft is trimmed", arguments: [
        (AnnotationDraft(atSeconds: 1, surah: nil, ayah: nil, kind: "madd", text: "x"), "invalid_kind"),
        (AnnotationDraft(atSeconds: 1, surah: 1, ayah: nil, kind: "tajweed", text: "x"), "surah_and_ayah_together"),
        (AnnotationDraft(atSeconds: 1, surah: nil, ayah: 1, kind: "tajweed", text: "x"), "surah_and_ayah_together"),
        (AnnotationDraft(atSeconds: 1, surah: 1, ayah: 8, kind: "tajweed", text: "x"), "unknown_ayah"),
        (AnnotationDraft(atSeconds: 10.5, surah: nil, ayah: nil, kind: "tajweed", text: "x"), "at_seconds_out_of_range"),
        (AnnotationDraft(atSeconds: .nan, surah: nil, ayah: nil, kind: "tajweed", text: "x"), "at_seconds_out_of_range"),
        (AnnotationDraft(atSeconds: 1, surah: nil, ayah: nil, kind: "tajweed", text: String(repeating: "a", count: 501)), "text_too_long"),
        (AnnotationDraft(atSeconds: 1, surah: nil, ayah: nil, kind: "tajweed", text: " \n"), "text_missing"),
    ])
    func refusals(draft: AnnotationDraft, code: String) {
        guard case let .failure(refusal) = draft.validated(durationSeconds: 10, requiresText: true) else {
            Issue.record("accepted \(draft)")
            return
        }
        #expect(refusal.code == code)
        #expect(refusal.message.hasSuffix("."))
    }

    @Test("A valid draft: trimmed text; a spoken correction needs no text")
    func valid() throws {
        let draft = AnnotationDraft(atSeconds: 10, surah: 1, ayah: 7, kind: "stop_start", text: "  Stop here.  ")
        let valid = try draft.validated(durationSeconds: 10, requiresText: true).get()
        #expect(valid.kind == .stopStart && valid.text == "Stop here." && valid.surah == 1 && valid.ayah == 7)
        let spoken = AnnotationDraft(atSeconds: 0, surah: nil, ayah: nil, kind: "other", text: "")
        #expect((try? spoken.validated(durationSeconds: 10, requiresText: false).get()) != nil)
    }
}
