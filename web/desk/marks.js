// Marks (annotations, DESIGN §9): the coach points at a moment of the recording — or at an
// ayah — with a kind of mistake, a short note and, if they like, a spoken correction of 1–30 s
// recorded in place. Before the reply is out they are the coach's draft; the student sees
// them with the reply. The ayah list also shows what was marked on each ayah in the student's
// earlier recordings, by any coach.
import { ApiError } from "./api.js";
import { element, typed } from "./dom.js";
import { ayahAt, ayahName, timed } from "./ayahs.js";
import { clock } from "./player.js";
import { ClipRecorder } from "./recorder.js";

export const MARK_KINDS = {
  wrong_word: "Wrong word", harakah: "Harakah", tajweed: "Tajweed", stop_start: "Stopping / starting", fluency: "Fluency", other: "Other",
};
const CORRECTION_MAX_SECONDS = 30;
const $ = (id) => document.getElementById(id);

const dateFormat = () => new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" });
const ayahKey = (surah, ayah) => `${surah}:${ayah}`;

/** A new marks state, kept in the review. */
export function newMarks() {
  return { at: 0, clip: null, history: new Map(), busy: false };
}

/**
 * Wires the marks panel of `review` (review.js's state): the form, the list, the history.
 * `seek(seconds)` moves the player; `refresh()` reads the submission again and returns it;
 * `currentTime()` is the player's time.
 */
export function openMarks(api, review, { seek, refresh, currentTime, signal }) {
  const marks = review.marks;
  const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
  const submission = review.submission;
  const ayahs = submission.ayahs ?? [];

  const select = $("mark-ayah");
  select.replaceChildren(element("option", "", "— the moment only —"), ...ayahs.map((entry) => {
    const option = element("option", "", entry.ayah === 0 ? `Opening (before ${entry.surah}:1)` : ayahName(entry));
    option.value = ayahKey(entry.surah, entry.ayah);
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
  });
  status("");

  on($("mark-here"), "click", () => markHere(review, currentTime()));
  on(select, "change", () => showHistory(review));
  on($("mark-record"), "click", () => marks.clip.toggle(signal));
  on($("mark-form"), "submit", (event) => { event.preventDefault(); addMark(api, review, refresh); });
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
    $("mark-ayah").value = index >= 0 ? ayahKey(ayahs[index].surah, ayahs[index].ayah) : "";
  }
  showHistory(review);
  $("mark-text").focus();
  status(`A mark at ${clock(seconds)}: choose the mistake, write a note, add it.`);
}

export function closeMarks(review) {
  review.marks?.clip?.cancel();
}

function setAt(marks, seconds) {
  marks.at = Math.max(0, Math.round(seconds * 100) / 100);
  $("mark-at").textContent = clock(marks.at) + (marks.at % 1 ? `.${String(Math.floor((marks.at % 1) * 10))}` : "");
}

function status(text) {
  $("mark-status").textContent = text;
}

function chosenAyah() {
  const value = $("mark-ayah").value;
  if (!value) return null;
  const [surah, ayah] = value.split(":").map(Number);
  return { surah, ayah };
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
    $("mark-text").value = "";
    marks.clip.discard();
    marks.clip.show();
    await refresh();
  } catch (error) {
    status(error instanceof ApiError ? error.message : String(error));
  } finally {
    marks.busy = false;
    $("mark-add").disabled = false;
  }
}

/** The recording's marks, by time; each seeks there, plays its correction, can be deleted. */
export function renderMarks(api, review, { seek, refresh }) {
  const list = $("mark-list");
  const annotations = [...(review.submission?.annotations ?? [])].sort((a, b) => a.at_seconds - b.at_seconds);
  list.replaceChildren(...annotations.map((note) => {
    const row = element("li", "mark");
    row.dataset.annotation = note.id;
    const go = element("button", "at", clock(note.at_seconds));
    go.type = "button";
    go.setAttribute("aria-label", `Play from ${clock(note.at_seconds)}`);
    go.addEventListener("click", () => seek(note.at_seconds));
    const what = element("span", "what", MARK_KINDS[note.kind] ?? note.kind);
    if (note.surah) what.append(element("span", "tag", ayahName(note)));
    row.append(go, what);
    if (note.text) row.append(typed(note.text, "text"));
    if (note.audio?.links?.audio) {
      const audio = element("audio");
      audio.controls = true;
      audio.preload = "none";
      audio.src = note.audio.links.audio;
      row.append(audio);
    }
    const remove = element("button", "remove", "Delete");
    remove.type = "button";
    remove.setAttribute("aria-label", `Delete the mark at ${clock(note.at_seconds)}`);
    remove.addEventListener("click", async () => {
      try {
        await api.send("DELETE", `/v1/annotations/${encodeURIComponent(note.id)}`);
        status(`The mark at ${clock(note.at_seconds)} is deleted.`);
        await refresh();
      } catch (error) {
        status(error.message);
      }
    });
    row.append(remove);
    return row;
  }));
  list.hidden = annotations.length === 0;
}

/** The student's earlier marks on the passage's surahs (any coach), by ayah; this recording's own left out. */
async function loadHistory(api, review, signal) {
  const marks = review.marks;
  const student = review.submission.student_id;
  const surahs = [...new Set((review.submission.ayahs ?? []).map((entry) => entry.surah))];
  for (const surah of surahs) {
    try {
      const page = await api.get(`/v1/students/${encodeURIComponent(student)}/annotations?surah=${surah}&limit=200`);
      if (signal.aborted) return;
      for (const note of page.annotations ?? []) {
        if (note.submission_id === review.id || note.ayah === null || note.ayah === undefined) continue;
        const key = ayahKey(note.surah, note.ayah);
        if (!marks.history.has(key)) marks.history.set(key, []);
        marks.history.get(key).push(note);
      }
    } catch {
      return; // the history is a help, not the review: without it the page works on
    }
  }
  showHistoryOnAyahs(review);
  showHistory(review);
}

/** An earlier mark as a list item: when and what (the page's words), then the coach's note in its own direction. */
function describe(note, className = "") {
  const when = dateFormat().format(new Date(note.created_at));
  const item = element("li", className, `${when} — ${MARK_KINDS[note.kind] ?? note.kind}${note.text ? ": " : ""}`);
  if (note.text) item.append(typed(note.text));
  return item;
}

function showHistoryOnAyahs(review) {
  for (const item of $("ayah-list").children) {
    const entry = review.submission.ayahs[Number(item.dataset.index)];
    item.querySelector(".before")?.remove();
    const earlier = entry ? review.marks.history.get(ayahKey(entry.surah, entry.ayah)) ?? [] : [];
    if (earlier.length === 0) continue;
    const note = element("details", "before");
    note.append(element("summary", "", `Marked before ${earlier.length === 1 ? "once" : `${earlier.length} times`}`));
    const list = element("ul");
    list.append(...earlier.slice(0, 5).map((mark) => describe(mark)));
    note.append(list);
    item.append(note);
  }
}

function showHistory(review) {
  const chosen = chosenAyah();
  const earlier = chosen ? review.marks.history.get(ayahKey(chosen.surah, chosen.ayah)) ?? [] : [];
  $("mark-history").hidden = earlier.length === 0;
  $("mark-history-title").textContent = chosen ? `Marked before on ${ayahName(chosen)}` : "Marked before";
  $("mark-history-list").replaceChildren(...earlier.slice(0, 10).map((mark) => describe(mark, "mark")));
}
