// Marks as values, apart from the page: the kinds of mistake, the ayah a mark is on as the mark
// form's choice, the mark's moment (to the hundredth; shown to the tenth), which marks the list
// shows and in what order, the waveform's points, the student's earlier marks by ayah.
import { openingOf } from "./ayahs.js";
import { clock } from "./player.js";

export const MARK_KINDS = {
  wrong_word: "Wrong word", harakah: "Harakah", tajweed: "Tajweed", stop_start: "Stopping / starting", fluency: "Fluency", other: "Other",
};
export const NUDGE_SECONDS = 0.1;

export const ayahKey = (surah, ayah) => `${surah}:${ayah}`;

/** The mark form's value for a passage entry: its surah and ayah, and for an opening which one (the isti'adha and basmala are both ayah 0). */
export const optionValue = (entry) => ayahKey(entry.surah, entry.ayah) + (openingOf(entry) ? `:${openingOf(entry)}` : "");

/** The form's option for a stored mark's ayah among `ayahs`: for ayah 0, the opening recited at the mark's moment (else the surah's first). */
export function optionFor(ayahs, note) {
  const same = ayahs.filter((entry) => entry.surah === note.surah && entry.ayah === note.ayah);
  const at = same.find((entry) => entry.start_seconds <= note.at_seconds && note.at_seconds < entry.end_seconds) ?? same[0];
  return at ? optionValue(at) : ayahKey(note.surah, note.ayah);
}

/** The surah and ayah an option's value names (`optionValue`), or null for "the moment only" (""). */
export function chosenIn(value) {
  if (!value) return null;
  const [surah, ayah] = value.split(":").map(Number);
  return { surah, ayah };
}

/** A mark's moment: never before the start, to the hundredth of a second. */
export function markAt(seconds) {
  return Math.max(0, Math.round(seconds * 100) / 100);
}

/** A mark's moment as the form shows it: tenths when there are any (rounded: 10.2 is "0:10.2", never 0:10.1999…). */
export function atText(at) {
  const shown = Math.round(at * 10) / 10;
  return clock(shown) + (shown % 1 ? `.${Math.round((shown % 1) * 10)}` : "");
}

/** The moment `at` moved by a tenth of a second (`direction` -1 or 1), within [0, `duration`]. */
export function nudged(at, direction, duration = Infinity) {
  return Math.min(duration, Math.max(0, at + direction * NUDGE_SECONDS));
}

/** The marks the list shows: by time, those whose deletion waits for its undo (ids in `hidden`) left out. */
export function marksInOrder(annotations, hidden = new Set()) {
  return [...annotations].filter((note) => !hidden.has(note.id)).sort((a, b) => a.at_seconds - b.at_seconds);
}

/** Whether the coach `own` may change or delete `note`: only its author (a covering coach's marks are theirs); anyone when no one is named. */
export function changeable(note, own) {
  return !own || note.coach_id === own;
}

/** The marks along the waveform's top (peaks.js's point fields); `own`'s can be dragged (they carry their id). */
export function markPoints(annotations, own) {
  return annotations.map((note) => ({
    time: note.at_seconds, labelText: note.kind, ...(note.coach_id === own ? { id: note.id } : {}),
  }));
}

/**
 * Adds the student's earlier marks `notes` to `history` (a Map by `ayahKey`): those of the
 * recording `submissionId` itself, and those on no ayah, left out. Returns `history`.
 */
export function addHistory(history, notes, submissionId) {
  for (const note of notes) {
    if (note.submission_id === submissionId || note.ayah === null || note.ayah === undefined) continue;
    const key = ayahKey(note.surah, note.ayah);
    if (!history.has(key)) history.set(key, []);
    history.get(key).push(note);
  }
  return history;
}
