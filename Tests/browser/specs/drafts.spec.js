// drafts-model.js: a reply's draft as a value — its key in the browser's store, what is kept
// (and when nothing is), what outlives the stored reply, and what the page says when it is back.
async ({ spec, load, equal, same, ok }) => {
  const { answerOf, draftAfterReply, draftKey, draftOf, draftPrefix, notesForStored, restoredSentence, takeOf } = await load("drafts-model.js");

  const blob = new Blob(["not really audio"], { type: "audio/webm" });
  const take = () => ({ blob, type: "audio/webm", seconds: 3.2, keys: new Map([["", "desk-1"], ["pass", "desk-2"]]), url: "blob:preview" });
  const empty = { take: null, notes: "", result: null, mark: null, answer: "" };

  spec("draftKey: the coach, then the recording; no coach's prefix is another's", () => {
    equal(draftKey("C01", "S9"), "C01\u0000S9");
    ok(draftKey("C01", "S9").startsWith(draftPrefix("C01")), "under its coach's prefix");
    ok(!draftKey("C01", "S9").startsWith(draftPrefix("C0")), "not under the prefix of a coach whose id begins the same");
    ok(draftKey("C0", "1S9") !== draftKey("C01", "S9"), "the separator keeps coach and recording apart");
  });

  spec("draftOf: nothing worth keeping is no draft (blank notes and answer count as nothing)", () => {
    equal(draftOf(empty), null);
    equal(draftOf({ ...empty, notes: "  \n", answer: " " }), null);
  });

  spec("draftOf: any one part is kept, the rest as it is", () => {
    same(draftOf({ ...empty, notes: "Mind the madd" }), { ...empty, notes: "Mind the madd" });
    same(draftOf({ ...empty, result: "pass" }), { ...empty, result: "pass" });
    same(draftOf({ ...empty, mark: { text: "ghunnah" } }), { ...empty, mark: { text: "ghunnah" } });
    same(draftOf({ ...empty, answer: "Six counts" }), { ...empty, answer: "Six counts" });
  });

  spec("draftOf: the take keeps its Blob, type, length and the send's keys (as an object), not its preview URL", () => {
    const draft = draftOf({ ...empty, take: take() });
    equal(draft.take.blob, blob, "the same Blob");
    same(Object.keys(draft.take).sort(), ["blob", "keys", "seconds", "type"]);
    same(draft.take.keys, { "": "desk-1", pass: "desk-2" });
    same(draftOf({ ...empty, take: { ...take(), keys: undefined } }).take.keys, {}, "a take never sent has no keys");
  });

  spec("takeOf: a draft's take as the reply holds it, its keys a Map again", () => {
    const back = takeOf(draftOf({ ...empty, take: take() }));
    equal(back.blob, blob);
    equal(back.seconds, 3.2);
    equal(back.type, "audio/webm");
    same(back.keys, new Map([["", "desk-1"], ["pass", "desk-2"]]));
    same(takeOf({ take: { blob, type: "audio/mp4", seconds: 1 } }).keys, new Map(), "no keys kept");
  });

  spec("answerOf and draftAfterReply: once the reply is stored, an answer and a mark taken back outlive it; the composer's part does not", () => {
    equal(answerOf({ answer: "  " }), "");
    equal(answerOf({}), "");
    equal(answerOf({ answer: "Jazak Allah khayran" }), "Jazak Allah khayran");
    const mark = { text: "ghunnah", at: 3 };
    const full = { take: draftOf({ ...empty, take: take() }).take, notes: "n", result: "pass", mark, answer: "a" };
    same(draftAfterReply(full, false), { take: null, notes: "", result: null, mark, answer: "a" });
    same(draftAfterReply({ mark, answer: "" }, true), { take: null, notes: "", result: null, mark, answer: "" });
    same(draftAfterReply({ answer: "" }, true), { take: null, notes: "", result: null, mark: null, answer: "" });
    equal(draftAfterReply({ notes: "n", mark, answer: " " }, false), null, "a mark the form did not take back, no answer: nothing");
  });

  spec("notesForStored: a draft's notes go on the stored reply only when its take was sent and the reply has none", () => {
    const sent = { notes: " Mind the madd ", take: { keys: { "": "desk-1" } } };
    equal(notesForStored(sent, { id: "F1", notes: null }), "Mind the madd");
    equal(notesForStored(sent, { id: "F1", notes: "Its own" }), null, "the reply keeps its own notes");
    equal(notesForStored(sent, null), null, "no stored reply");
    equal(notesForStored({ ...sent, take: { keys: {} } }, { id: "F1" }), null, "the take was never sent: a reply from elsewhere");
    equal(notesForStored({ ...sent, take: null }, { id: "F1" }), null, "no take");
    equal(notesForStored({ ...sent, notes: "  " }, { id: "F1" }), null, "blank notes");
  });

  spec("restoredSentence: what the page says when a draft is back", () => {
    equal(restoredSentence({ take: { seconds: 65 }, notes: "" }, "Mon 10:00"), "Your unsent reply (1:05, kept Mon 10:00) is back: listen, then send.");
    equal(restoredSentence({ take: null, notes: "n" }, "Mon 10:00"), "Your unsent notes (kept Mon 10:00) are back.");
    equal(restoredSentence({ take: null, notes: "", result: "pass" }, "Mon 10:00"), "Your unsent notes (kept Mon 10:00) are back.");
    equal(restoredSentence({ take: null, notes: "  ", mark: { text: "m" }, answer: "a" }, "Mon 10:00"), null, "nothing of the reply itself");
  });
}
