// The mark form's own state on the page: the moment it shows, the ayah chosen, its status line,
// back from editing to adding, and the mark being written as the recording's draft (kept by
// reply-draft.js with the reply's).
import { atText, chosenIn, markAt } from "./marks-model.js";
import { clock } from "./player.js";

const $ = (id) => document.getElementById(id);

/** The form's moment (`marks.at`, to the hundredth) and what it shows. */
export function setAt(marks, seconds) {
  marks.at = markAt(seconds);
  $("mark-at").textContent = atText(marks.at);
}

export function status(text) {
  $("mark-status").textContent = text;
}

/** The surah and ayah chosen in the form, or null for the moment only. */
export function chosenAyah() {
  return chosenIn($("mark-ayah").value);
}

/** The form adds marks again (no mark is being edited). */
export function stopEditing(review) {
  const marks = review.marks;
  // A correction recorded (or being recorded) for the mark being edited is not the next new mark's.
  if (marks.editing && marks.clip) {
    marks.clip.cancel();
    marks.clip.show();
  }
  marks.editing = null;
  marks.dropClip = false;
  $("mark-add").textContent = "Add mark";
  $("mark-cancel").hidden = true;
  $("mark-drop-clip").hidden = true;
  marks.clip?.relabel("Record a correction", "correction");
  $("mark-form").classList.remove("editing");
  cleared($("mark-text"));
}

/** Empties a field as typing would (its draft, kept on `input`, follows). */
export function cleared(field) {
  field.value = "";
  field.dispatchEvent(new Event("input"));
}

/**
 * The mark being written (not one being edited), for the recording's draft: `{at, kind, text,
 * ayah}`, or null when its note is empty.
 */
export function markDraft(review) {
  const marks = review.marks;
  const text = $("mark-text").value;
  if (!marks || marks.editing || !text.trim()) return null;
  return { at: marks.at, kind: $("mark-kind").value, text, ayah: $("mark-ayah").value };
}

/** Puts a draft's unfinished mark back in the form, unless the coach has started another. */
export function restoreMarkDraft(review, mark) {
  const marks = review.marks;
  if (!mark?.text || marks.editing || $("mark-text").value) return false;
  setAt(marks, mark.at ?? 0);
  if ([...$("mark-kind").options].some((option) => option.value === mark.kind)) $("mark-kind").value = mark.kind;
  if ([...$("mark-ayah").options].some((option) => option.value === mark.ayah)) $("mark-ayah").value = mark.ayah;
  $("mark-text").value = mark.text;
  status(`Your unfinished mark at ${clock(marks.at)} is back: add it, or clear its note.`);
  return true;
}
