// The recording's marks, by time, in the list the page hands in: each seeks there, plays its
// spoken correction, and — for its author — can be edited or deleted (`actions`, marks.js's).
import { ayahName } from "./ayahs.js";
import { element, typed } from "./dom.js";
import { changeable, MARK_KINDS, marksInOrder } from "./marks-model.js";
import { clock } from "./player.js";

/**
 * Shows `review`'s marks in `list`, and in `caption` who sees them. `actions`: `seek(seconds)`,
 * `edit(note)`, `remove(note)`.
 */
export function showMarks({ list, caption }, review, actions) {
  const marks = review.marks;
  const own = review.session?.coach_id;
  const annotations = marksInOrder(review.submission?.annotations ?? [], marks.pending);
  // Until the reply is out the marks are the coach's draft; after it, each new one reaches the student at once.
  const replied = (review.submission?.feedback ?? []).length > 0 || Boolean(review.reply?.sent);
  caption.textContent = replied
    ? "The reply is out: the student sees these marks, and a new one is sent to them at once."
    : "Marks are a draft until you send the reply: the student sees them with it.";
  list.replaceChildren(...annotations.map((note) => {
    const row = element("li", "mark");
    row.dataset.annotation = note.id;
    const go = element("button", "at", clock(note.at_seconds));
    go.type = "button";
    go.setAttribute("aria-label", `Play from ${clock(note.at_seconds)}`);
    go.addEventListener("click", () => actions.seek(note.at_seconds));
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
    // Only its author changes or deletes a mark (a covering coach's marks are theirs).
    if (changeable(note, own)) {
      const edit = element("button", "edit", "Edit");
      edit.type = "button";
      edit.setAttribute("aria-label", `Edit the mark at ${clock(note.at_seconds)}`);
      edit.addEventListener("click", () => actions.edit(note));
      const remove = element("button", "remove", "Delete");
      remove.type = "button";
      remove.setAttribute("aria-label", `Delete the mark at ${clock(note.at_seconds)}`);
      remove.addEventListener("click", () => actions.remove(note));
      row.append(edit, remove);
    }
    return row;
  }));
  list.hidden = annotations.length === 0;
}
