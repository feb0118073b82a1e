// ayahs.js: the passage's display — the basmala split as the server splits it, the isti'adha
// and basmala named apart, and, once a recording is aligned, where each ayah is (an ayah recited
// without a pause after the one before has no times of its own and is skipped).
async ({ spec, load, equal, same, ok }) => {
  const ayahs = await load("ayahs.js");
  const { alignmentNote, arabicNumber, ayahAt, ayahName, ayahStep, basmalaListed, hasTimes, openingOf, segmentsOf, splitBasmala, timed } = ayahs;

  // Tanzil's text (data/quran/quran-uthmani.txt) and an isti'adha as the server gives it.
  const ISTIADHA = "أَعُوذُ بِٱللَّهِ مِنَ ٱلشَّيْطَـٰنِ ٱلرَّجِيمِ";
  const BASMALA = "بِسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ";
  const TEXT = {
    "1:1": "بِسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ",
    "9:1": "بَرَآءَةٌ مِّنَ ٱللَّهِ وَرَسُولِهِۦٓ إِلَى ٱلَّذِينَ عَـٰهَدتُّم مِّنَ ٱلْمُشْرِكِينَ",
    "95:1": "بِّسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ وَٱلتِّينِ وَٱلزَّيْتُونِ",
    "112:1": "بِسْمِ ٱللَّهِ ٱلرَّحْمَـٰنِ ٱلرَّحِيمِ قُلْ هُوَ ٱللَّهُ أَحَدٌ",
    "112:2": "ٱللَّهُ ٱلصَّمَدُ",
  };
  // Al-Ikhlas recited with the isti'adha and the basmala before it, 112:3 run into 112:2 (no times).
  const passage = () => [
    { surah: 112, ayah: 0, opening: "istiadha", text: ISTIADHA, start_seconds: 0, end_seconds: 2 },
    { surah: 112, ayah: 0, opening: "basmala", text: BASMALA, start_seconds: 2.3, end_seconds: 4.5 },
    { surah: 112, ayah: 1, text: TEXT["112:1"], start_seconds: 4.8, end_seconds: 6.5 },
    { surah: 112, ayah: 2, text: TEXT["112:2"], start_seconds: 6.8, end_seconds: 9.5 },
    { surah: 112, ayah: 3, text: "" },
    { surah: 112, ayah: 4, text: "", start_seconds: 9.7, end_seconds: 10.8 },
  ];
  const untimed = () => passage().map(({ start_seconds, end_seconds, ...entry }) => entry);

  spec("hasTimes and timed: an ayah needs both ends; a recording is aligned when any ayah has them", () => {
    equal(hasTimes({ start_seconds: 1, end_seconds: 2 }), true);
    equal(hasTimes({ start_seconds: 1 }), false, "no end");
    equal(hasTimes({ start_seconds: null, end_seconds: 2 }), false, "null start");
    equal(timed(passage()), true);
    equal(timed(untimed()), false);
    equal(timed([]), false);
  });

  spec("ayahAt: the last ayah with times started, the ayah without times skipped", () => {
    const list = passage();
    equal(ayahAt(list, 9.0), 3, "at 9.0 s, 112:2 (112:3 has no times)");
    equal(ayahAt(list, 10.0), 5, "at 10 s, 112:4");
    equal(ayahAt(list, 4.8), 2, "at its very start");
    equal(ayahAt(list, 0), 0, "the isti'adha");
    equal(ayahAt(list, -1), -1, "before anything");
    equal(ayahAt(untimed(), 5), -1, "unaligned");
  });

  spec("ayahStep: Shift+→ to the next ayah with times; Shift+← to this one's start, or the one before within its first second", () => {
    const list = passage();
    equal(ayahStep(list, 7.0, 1), 9.7, "from 112:2 over 112:3 to 112:4");
    equal(ayahStep(list, 9.8, -1), 6.8, "from 112:4's first second back over 112:3 to 112:2");
    equal(ayahStep(list, 11, -1), 9.7, "past 112:4's first second: its own start");
    equal(ayahStep(list, 10.8, 1), null, "after the last");
    equal(ayahStep(list, 0.5, -1), 0, "the first ayah's start");
    equal(ayahStep(list, -1, 1), 0, "before anything, forward to the first");
    equal(ayahStep(list, -1, -1), null, "before anything, nowhere back");
    equal(ayahStep(untimed(), 3, 1), null, "unaligned");
  });

  spec("openingOf: ayah 0 is the isti'adha or the basmala, by the server's word or else by its text", () => {
    equal(openingOf({ surah: 112, ayah: 0, opening: "istiadha", text: BASMALA }), "istiadha", "the server's word wins");
    equal(openingOf({ surah: 112, ayah: 0, text: ISTIADHA }), "istiadha");
    equal(openingOf({ surah: 112, ayah: 0, text: BASMALA }), "basmala");
    equal(openingOf({ surah: 112, ayah: 0 }), null, "a mark on ayah 0 carries no text");
    equal(openingOf({ surah: 112, ayah: 1, text: TEXT["112:1"] }), null, "an ayah");
  });

  spec("ayahName: the isti'adha and the basmala named apart", () => {
    same(passage().map(ayahName), ["Isti'adha before 112:1", "Basmala before 112:1", "112:1", "112:2", "112:3", "112:4"]);
    equal(ayahName({ surah: 112, ayah: 0 }), "Opening before 112:1", "an opening not known");
  });

  spec("splitBasmala: the basmala Tanzil prefixes to ayah 1 is its own line, as the server splits it", () => {
    same(splitBasmala({ surah: 112, ayah: 1, text: TEXT["112:1"] }), { basmala: BASMALA, text: TEXT["112:1"].split(" ").slice(4).join(" ") });
    const shadda = splitBasmala({ surah: 95, ayah: 1, text: TEXT["95:1"] });
    equal(shadda.basmala, TEXT["95:1"].split(" ").slice(0, 4).join(" "), "95:1's basmala with its shadda, as Tanzil writes it");
    ok(shadda.basmala !== BASMALA, "95:1's basmala is its own text");
    same(splitBasmala({ surah: 1, ayah: 1, text: TEXT["1:1"] }), { basmala: null, text: TEXT["1:1"] }, "1:1 is the basmala");
    same(splitBasmala({ surah: 9, ayah: 1, text: TEXT["9:1"] }), { basmala: null, text: TEXT["9:1"] }, "9 has none");
    same(splitBasmala({ surah: 112, ayah: 2, text: TEXT["112:2"] }), { basmala: null, text: TEXT["112:2"] }, "not ayah 1");
    equal(splitBasmala({ surah: 113, ayah: 1, text: BASMALA }).basmala, null, "nothing after the basmala: nothing to split");
  });

  spec("basmalaListed: an ayah 1 after its basmala recited apart does not show the basmala again", () => {
    const list = passage();
    equal(basmalaListed(list, 2), true, "112:1 after the basmala");
    equal(basmalaListed(list, 3), false, "112:2");
    equal(basmalaListed([list[2]], 0), false, "112:1 alone");
    equal(basmalaListed([list[0], list[2]], 1), false, "112:1 after the isti'adha only");
    equal(basmalaListed([{ ...list[1], surah: 113 }, list[2]], 1), false, "another surah's basmala");
  });

  spec("arabicNumber: the end-of-ayah mark's digits", () => {
    equal(arabicNumber(112), "١١٢");
    equal(arabicNumber(4), "٤");
  });

  spec("alignmentNote: what the help line says with times, with an ayah not found, and without times", () => {
    const all = passage().filter(hasTimes);
    ok(alignmentNote(all).endsWith("each ayah can be looped."), alignmentNote(all));
    ok(alignmentNote(passage()).endsWith("each ayah with a marker can be looped."), alignmentNote(passage()));
    ok(alignmentNote(untimed()).startsWith("Ayah markers are not available for this recording yet;"), alignmentNote(untimed()));
    ok(alignmentNote(untimed(), "poor_fit").includes("recording — its pauses do not fit the passage's ayahs"), alignmentNote(untimed(), "poor_fit"));
    ok(alignmentNote(untimed(), "sound_mismatch").includes("recording — its sounds do not match the passage's letters (another passage?)"), alignmentNote(untimed(), "sound_mismatch"));
    ok(alignmentNote(untimed(), "a_new_reason").includes("recording — a_new_reason;"), "an unknown reason is shown as it is");
  });

  spec("segmentsOf: a band per ayah with times, named, then the A–B loop in order", () => {
    const none = { a: null, b: null };
    same(segmentsOf(passage(), none).map((segment) => [segment.labelText, segment.startTime, segment.endTime, segment.kind]), [
      ["Isti'adha before 112:1", 0, 2, "ayah"], ["Basmala before 112:1", 2.3, 4.5, "ayah"], ["112:1", 4.8, 6.5, "ayah"],
      ["112:2", 6.8, 9.5, "ayah"], ["112:4", 9.7, 10.8, "ayah"],
    ]);
    same(segmentsOf(untimed(), { a: 8, b: 5 }), [{ startTime: 5, endTime: 8, labelText: "loop", kind: "loop" }], "unaligned: the loop only, its ends in order");
    same(segmentsOf(untimed(), { a: 5, b: null }), [], "a loop with one end is not drawn");
  });
}
