// Marks (annotations, DESIGN §9): the coach points at a moment of the recording — or at an
// ayah — with a kind of mistake, a short note and, if they like, a spoken correction of 1–30 s
// recorded in place. Before the reply is out they are the coach's draft; the student sees
// them with the reply. The ayah list also shows what was marked on each ayah in the student's
// earlier recordings, by any coach.
//
// A mark of the coach's own moves (drag its marker on the waveform, or −0.1 s/+0.1 s and the
// `,` `.` keys while it is being edited) and changes (Edit: its moment, ayah, kind and note,
// `PATCH /v1/annotations/<id>`; its spoken correction recorded again or taken away,
// `PUT`/`DELETE /v1/annotations/<id>/audio`). A deleted mark can be brought back for 10 s: the deletion is
// sent when that time is up, or at once when the review closes, the reply is sent or the page
// is left.
//
// The form's fields are mark-form.js's, the list mark-list.js's, the earlier marks
// mark-history.js's, and the values (kinds, moments, ayah choices) marks-model.js's.
import { ApiError } from "./api.js";
import { element } from "./dom.js";
import { ayahAt, ayahName, timed } from "./ayahs.js";
import { chosenAyah, cleared, setAt, status, stopEditing } from "./mark-form.js";
import { loadHistory, showHistory } from "./mark-history.js";
import { showMarks } from "./mark-list.js";
import { MARK_KINDS, nudged, optionFor, optionValue } from "./marks-model.js";
import { clock } from "./player.js";
import { ClipRecorder } from "./recorder.js";

const CORRECTION_MAX_SECONDS = 30;
const UNDO_SECONDS = 10;
const $ = (id) => document.getElementById(id);

/** A new marks state, kept in the review. */
export function newMarks() {
  return {
    at: 0, clip: null, history: new Map(), busy: false, dropClip: false,
    // The mark being edited (an annotation), the deletions waiting out their undo (id → {note, timer}).
    editing: null, pending: new Map(), api: null, seek: () => {}, refresh: async () => {},
  };
}

/**
 * Wires the marks panel of `review` (review.js's state): the form, the list, the history.
 * `seek(seconds)` moves the player; `refresh()` reads the submission again and returns it;
 * `currentTime()` is the player's time.
 */
export function openMarks(api, review, { seek, refresh, currentTime, signal }) {
  const marks = review.marks;
  Object.assign(marks, { api, seek, refresh });
  const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
  const submission = review.submission;
  const ayahs = submission.ayahs ?? [];

  const select = $("mark-ayah");
  select.replaceChildren(element("option", "", "— the moment only —"), ...ayahs.map((entry) => {
    const option = element("option", "", ayahName(entry));
    option.value = optionValue(entry);
    return option;
  }));
  select.firstChild.value = "";
  $("mark-ayah").closest("label").hidden = ayahs.length === 0;
  $("mark-text").value = "";
  $("mark-kind").value = "wrong_word";
  setAt(marks, 0);
  marks.clip = new ClipRecorder({
    button: $("mark-record"), node: $("mark-take"), name: "correction", idle: "Record a correction",
    maxSeconds: CORRECTION_MAX_SECONDS, onError: status,
    // While a mark with a correction is edited, a new take replaces it: nothing to remove then.
    onShow: (take) => {
      $("mark-drop-clip").hidden = !marks.editing?.audio || Boolean(take);
      if (take && marks.editing) status("The new correction replaces the mark's old one once saved.");
    },
  });
  status("");

  on($("mark-here"), "click", () => markHere(review, currentTime()));
  on(select, "change", () => showHistory(review));
  on($("mark-record"), "click", () => {
    // A new correction for the mark being edited replaces its old one, rather than removing it.
    if (marks.editing && marks.dropClip) toggleDropClip(review);
    marks.clip.toggle(signal);
  });
  on($("mark-drop-clip"), "click", () => toggleDropClip(review));
  on($("mark-form"), "submit", (event) => {
    event.preventDefault();
    if (marks.editing) saveMark(api, review, refresh);
    else addMark(api, review, refresh);
  });
  on($("mark-earlier"), "click", () => nudgeMark(review, -1));
  on($("mark-later"), "click", () => nudgeMark(review, 1));
  on($("mark-cancel"), "click", () => { stopEditing(review); status("The mark is as it was."); });
  on($("mark-undo"), "click", () => undoDelete(review, refresh));
  // Leaving the page: the deletions waiting for their undo are sent on the way out.
  on(window, "pagehide", () => flushDeletes(review, { keepalive: true }));
  stopEditing(review);
  showUndo(review);
  renderMarks(api, review, { seek, refresh });
  loadHistory(api, review, signal);
}

/** `M` or "Mark here": the mark is at the playhead, on the ayah being recited; the note takes the focus. */
export function markHere(review, seconds) {
  const marks = review.marks;
  setAt(marks, seconds);
  const ayahs = review.submission?.ayahs ?? [];
  if (timed(ayahs)) {
    const index = ayahAt(ayahs, seconds);
    $("mark-ayah").value = index >= 0 ? optionValue(ayahs[index]) : "";
  }
  showHistory(review);
  $("mark-text").focus();
  status(`A mark at ${clock(seconds)}: choose the mistake, write a note, add it.`);
}

export function closeMarks(review) {
  review.marks?.clip?.cancel();
  if (review.marks) flushDeletes(review);
}

/** `,` `.` and the −0.1 s / +0.1 s buttons: the form's moment moves by a tenth of a second (saved with the mark). */
export function nudgeMark(review, direction) {
  const marks = review.marks;
  const duration = review.submission?.analysis?.duration_seconds ?? Infinity;
  setAt(marks, nudged(marks.at, direction, duration));
  status(marks.editing ? `The mark will move to ${$("mark-at").textContent} once saved.` : `The mark will be at ${$("mark-at").textContent}.`);
}

/** A mark's marker dragged on the waveform to `seconds`: its new moment is stored at once. */
export async function moveMark(review, id, seconds, refresh) {
  const marks = review.marks;
  try {
    await marks.api.send("PATCH", `/v1/annotations/${encodeURIComponent(id)}`, { json: { at_seconds: seconds } });
    if (marks.editing?.id === id) setAt(marks, seconds);
    status(`The mark moved to ${clock(seconds)}.`);
  } catch (error) {
    status(`The mark did not move: ${error.message}`);
  }
  await refresh().catch(() => {});
}

/** Sends the deletions still waiting for their undo (now, not in 10 s). */
export async function flushDeletes(review, { keepalive = false } = {}) {
  const marks = review.marks;
  const waiting = [...marks.pending.entries()];
  marks.pending.clear();
  showUndo(review);
  await Promise.all(waiting.map(([id, { timer }]) => {
    clearTimeout(timer);
    return marks.api?.send("DELETE", `/v1/annotations/${encodeURIComponent(id)}`, { keepalive }).catch(() => {});
  }));
}

async function addMark(api, review, refresh) {
  const marks = review.marks;
  if (marks.busy) return;
  const take = marks.clip.take;
  if (marks.clip.recording) return status("Stop the correction's recording first.");
  const text = $("mark-text").value.trim();
  const kind = $("mark-kind").value;
  if (!text && !take) {
    $("mark-text").focus();
    return status("Write a note (or record a spoken correction) for the mark.");
  }
  const fields = { at_seconds: marks.at, kind, ...(chosenAyah() ?? {}) };
  if (text) fields.text = text;
  const path = `/v1/submissions/${encodeURIComponent(review.id)}/annotations`;
  marks.busy = true;
  $("mark-add").disabled = true;
  try {
    if (take) {
      const query = new URLSearchParams(Object.entries(fields).map(([name, value]) => [name, String(value)]));
      await api.upload(`${path}?${query}`, take.blob, { headers: { "Content-Type": take.type } });
    } else {
      await api.send("POST", path, { json: fields });
    }
    const where = fields.surah ? `, ${ayahName(fields)}` : "";
    status(`Marked ${clock(fields.at_seconds)}${where}: ${MARK_KINDS[kind]}.`);
    cleared($("mark-text"));
    marks.clip.discard();
    marks.clip.show();
    await refresh();
    // Back to listening: Space plays on from the mark.
    $("play").focus();
  } catch (error) {
    status(error instanceof ApiError ? error.message : String(error));
  } finally {
    marks.busy = false;
    $("mark-add").disabled = false;
  }
}

/** Edit: the mark's moment, ayah, kind and note fill the form, whose button now saves it. */
function editMark(review, note) {
  const marks = review.marks;
  // A correction recorded and not yet saved is the coach's work: never dropped by opening another mark.
  if (marks.clip.take || marks.clip.recording) {
    return status("Save or remove the correction you recorded before editing another mark.");
  }
  marks.editing = note;
  setAt(marks, note.at_seconds);
  $("mark-ayah").value = note.surah ? optionFor(review.submission?.ayahs ?? [], note) : "";
  $("mark-kind").value = note.kind;
  $("mark-text").value = note.text ?? "";
  $("mark-add").textContent = "Save mark";
  $("mark-cancel").hidden = false;
  // Its spoken correction stays unless recorded again (or taken away) before Save.
  marks.dropClip = false;
  marks.clip.discard();
  $("mark-drop-clip").textContent = "Remove its correction";
  marks.clip.relabel(note.audio ? "Record a new correction" : "Record a correction", note.audio ? "new correction" : "correction");
  $("mark-form").classList.add("editing");
  showHistory(review);
  $("mark-text").focus();
  status(`Editing the mark at ${clock(note.at_seconds)}: change it, move it by −0.1 s / +0.1 s (or , and .), then save.`);
}

async function saveMark(api, review, refresh) {
  const marks = review.marks;
  const note = marks.editing;
  if (!note || marks.busy) return;
  if (marks.clip.recording) return status("Stop the correction's recording first.");
  const take = marks.clip.take;
  const dropClip = marks.dropClip && !take && Boolean(note.audio);
  const text = $("mark-text").value.trim();
  if (!text && (dropClip || (!note.audio && !take))) {
    $("mark-text").focus();
    return status(dropClip ? "Write a note for the mark before removing its correction." : "Write a note for the mark.");
  }
  const where = chosenAyah();
  const change = { at_seconds: marks.at, kind: $("mark-kind").value, text, surah: where?.surah ?? null, ayah: where?.ayah ?? null };
  const path = `/v1/annotations/${encodeURIComponent(note.id)}`;
  marks.busy = true;
  try {
    // The correction first: a clip the chain refuses leaves the mark as it was.
    if (take) await api.send("PUT", `${path}/audio`, { body: take.blob, headers: { "Content-Type": take.type } });
    await api.send("PATCH", path, { json: change });
    if (dropClip) await api.send("DELETE", `${path}/audio`);
    stopEditing(review);
    const clipChange = take ? ", with its new correction" : dropClip ? ", without its correction" : "";
    status(`The mark is saved at ${clock(change.at_seconds)}${where ? `, ${ayahName(where)}` : ""}: ${MARK_KINDS[change.kind]}${clipChange}.`);
    await refresh();
    document.getElementById("play")?.focus();
  } catch (error) {
    status(error instanceof ApiError ? error.message : String(error));
  } finally {
    marks.busy = false;
  }
}

/** "Remove its correction" while a mark is edited: its spoken correction goes once saved (pressed again, it stays). */
function toggleDropClip(review) {
  const marks = review.marks;
  marks.dropClip = !marks.dropClip;
  if (marks.dropClip) {
    marks.clip.discard();
    marks.clip.show();
  }
  $("mark-drop-clip").textContent = marks.dropClip ? "Keep its correction" : "Remove its correction";
  status(marks.dropClip ? "Its spoken correction will be removed once the mark is saved." : "Its spoken correction stays.");
}

/** Delete: the mark leaves the list at once and is deleted in 10 s, unless brought back. */
function deleteMark(review, note, refresh) {
  const marks = review.marks;
  if (marks.editing?.id === note.id) stopEditing(review);
  const timer = setTimeout(async () => {
    if (!marks.pending.delete(note.id)) return;
    showUndo(review);
    try {
      await marks.api.send("DELETE", `/v1/annotations/${encodeURIComponent(note.id)}`);
    } catch (error) {
      status(`The mark at ${clock(note.at_seconds)} was not deleted: ${error.message}`);
    }
    await refresh().catch(() => {});
  }, UNDO_SECONDS * 1000);
  marks.pending.set(note.id, { note, timer });
  showUndo(review);
  renderMarks(marks.api, review, { seek: marks.seek, refresh });
  $("mark-undo").focus();
}

function undoDelete(review, refresh) {
  const marks = review.marks;
  const last = [...marks.pending.entries()].pop();
  if (!last) return;
  const [id, { note, timer }] = last;
  clearTimeout(timer);
  marks.pending.delete(id);
  showUndo(review);
  status(`The mark at ${clock(note.at_seconds)} is back.`);
  refresh().catch(() => {});
  document.getElementById("play")?.focus();
}

function showUndo(review) {
  const last = [...review.marks.pending.values()].pop();
  $("mark-undo-row").hidden = !last;
  if (last) $("mark-undo-text").textContent = `The mark at ${clock(last.note.at_seconds)} is deleted.`;
}

/** The recording's marks, by time; each seeks there, plays its correction, can be edited and deleted. */
export function renderMarks(api, review, { seek, refresh }) {
  showMarks({ list: $("mark-list"), caption: $("marks-note") }, review, {
    seek, edit: (note) => editMark(review, note), remove: (note) => deleteMark(review, note, refresh),
  });
}
