// marks-model.js: marks as values — the form's ayah choice (the isti'adha and the basmala apart),
// the moment to the hundredth and shown to the tenth, the list's order, who may change a mark,
// the waveform's points, and the student's earlier marks by ayah.
async ({ spec, load, equal, same, ok }) => {
  const { addHistory, atText, changeable, chosenIn, MARK_KINDS, markAt, markPoints, marksInOrder, nudged, optionFor, optionValue } = await load("marks-model.js");

  const passage = [
    { surah: 112, ayah: 0, opening: "istiadha", start_seconds: 0, end_seconds: 2 },
    { surah: 112, ayah: 0, opening: "basmala", start_seconds: 2.3, end_seconds: 4.5 },
    { surah: 112, ayah: 1, start_seconds: 4.8, end_seconds: 6.5 },
    { surah: 112, ayah: 3 },
  ];

  spec("MARK_KINDS: the kinds the form offers, in its order", () => {
    same(Object.keys(MARK_KINDS), ["wrong_word", "harakah", "tajweed", "stop_start", "fluency", "other"]);
  });

  spec("optionValue and chosenIn: an opening's option says which; the choice is its surah and ayah", () => {
    same(passage.map(optionValue), ["112:0:istiadha", "112:0:basmala", "112:1", "112:3"]);
    same(chosenIn("112:0:basmala"), { surah: 112, ayah: 0 });
    same(chosenIn("1:7"), { surah: 1, ayah: 7 });
    equal(chosenIn(""), null, "the moment only");
  });

  spec("optionFor: a stored mark on ayah 0 is on the opening recited at its moment, else the surah's first", () => {
    equal(optionFor(passage, { surah: 112, ayah: 0, at_seconds: 3 }), "112:0:basmala");
    equal(optionFor(passage, { surah: 112, ayah: 0, at_seconds: 1 }), "112:0:istiadha");
    equal(optionFor(passage, { surah: 112, ayah: 0, at_seconds: 20 }), "112:0:istiadha", "outside both");
    equal(optionFor(passage, { surah: 112, ayah: 3, at_seconds: 8 }), "112:3", "an ayah without times");
    equal(optionFor(passage, { surah: 2, ayah: 5, at_seconds: 1 }), "2:5", "not in this passage");
  });

  spec("markAt, nudged and atText: to the hundredth, moved by tenths within the recording, shown to the tenth", () => {
    equal(markAt(10.234), 10.23);
    equal(markAt(-1), 0);
    equal(markAt(nudged(10.2, 1)), 10.3, "10.2 + 0.1 is 10.3, not 10.299…");
    equal(markAt(nudged(5, -1)), 4.9);
    equal(nudged(0.05, -1), 0, "never before the start");
    equal(nudged(10.95, 1, 11), 11, "never past the end");
    equal(atText(10.2), "0:10.2");
    equal(atText(10.3), "0:10.3");
    equal(atText(5), "0:05");
    equal(atText(65.04), "1:05", "hundredths are not shown");
    equal(atText(0.96), "0:01", "rounded to the tenth");
  });

  spec("marksInOrder and changeable: by time, deletions waiting for their undo left out; only the author changes a mark", () => {
    const notes = [{ id: "a", at_seconds: 5 }, { id: "b", at_seconds: 1 }, { id: "c", at_seconds: 3 }];
    same(marksInOrder(notes, new Map([["c", {}]])).map((note) => note.id), ["b", "a"]);
    same(marksInOrder(notes).map((note) => note.id), ["b", "c", "a"]);
    same(notes.map((note) => note.id), ["a", "b", "c"], "not sorted in place");
    equal(changeable({ coach_id: "C01" }, "C01"), true);
    equal(changeable({ coach_id: "C02" }, "C01"), false, "a covering coach's mark");
    equal(changeable({ coach_id: "C02" }, undefined), true, "no coach named");
  });

  spec("markPoints: the waveform's points; only the coach's own carry an id (and can be dragged)", () => {
    const points = markPoints([
      { id: "a", at_seconds: 1, kind: "tajweed", coach_id: "C01" },
      { id: "b", at_seconds: 2, kind: "other", coach_id: "C02" },
    ], "C01");
    same(points, [{ time: 1, labelText: "tajweed", id: "a" }, { time: 2, labelText: "other" }]);
    ok(!("id" in points[1]), "another coach's point has no id at all");
  });

  spec("addHistory: earlier marks by ayah; this recording's own and those on no ayah left out", () => {
    const history = addHistory(new Map(), [
      { id: "own", submission_id: "S9", surah: 112, ayah: 1 },
      { id: "x", submission_id: "S1", surah: 112, ayah: 1 },
      { id: "moment", submission_id: "S1", surah: null, ayah: null },
      { id: "unset", submission_id: "S1", surah: 112 },
      { id: "y", submission_id: "S2", surah: 112, ayah: 1 },
      { id: "z", submission_id: "S2", surah: 112, ayah: 0 },
    ], "S9");
    same([...history.keys()], ["112:1", "112:0"]);
    same(history.get("112:1").map((note) => note.id), ["x", "y"]);
    same(history.get("112:0").map((note) => note.id), ["z"]);
  });
}
