// The passage in the review, ayah by ayah in Arabic, in the list the page hands in: each
// ayah's name, its text (the basmala shown once), its end-of-ayah mark; once the recording is
// aligned, a button to play from each ayah with times and one to loop it, and the ayah being
// recited marked as current. What is shown is ayahs.js's to decide.
import { alignmentNote, arabicNumber, ayahName, basmalaListed, hasTimes, splitBasmala, timed } from "./ayahs.js";
import { elementWith } from "./dom.js";

/**
 * Renders `submission`'s passage into `list` and its help line into `note`; `section` is hidden
 * when there is no passage. `seek(seconds)` plays from an ayah, `loopAyah(index)` loops one.
 */
export function renderPassage({ section, note, list }, submission, { seek, loopAyah }) {
  const ayahs = submission.ayahs ?? [];
  const withTimes = timed(ayahs);
  section.hidden = ayahs.length === 0;
  note.textContent = alignmentNote(ayahs, submission.ayahs_unavailable_reason);
  list.replaceChildren(...ayahs.map((entry, index) => {
    const item = elementWith("li", { className: "ayah", "data-index": String(index) });
    const head = elementWith("div", { className: "ayah-head" });
    if (withTimes && !hasTimes(entry)) {
      head.append(elementWith("span", { className: "ref" }, ayahName(entry)),
        elementWith("span", { className: "not-found" }, "not found: recited with the ayah before it, whose marker covers both"));
    } else if (withTimes) {
      const go = elementWith("button", { type: "button", className: "ref", "aria-label": `Play from ${ayahName(entry)}` }, ayahName(entry));
      go.addEventListener("click", () => seek(entry.start_seconds));
      const loop = elementWith("button", { type: "button", className: "ayah-loop", "aria-pressed": "false", "aria-label": `Loop ayah ${ayahName(entry)}` }, "Loop this ayah");
      loop.addEventListener("click", () => loopAyah(index));
      head.append(go, loop);
    } else {
      head.append(elementWith("span", { className: "ref" }, ayahName(entry)));
    }
    item.append(head);
    // The basmala once: on its own line before ayah 1, or as its own entry when it was recited apart.
    const { basmala, text } = splitBasmala(entry);
    if (basmala && !basmalaListed(ayahs, index)) item.append(elementWith("p", { className: "basmala", lang: "ar", dir: "rtl" }, basmala));
    const verse = elementWith("p", { className: "verse", lang: "ar", dir: "rtl" }, text);
    // The end-of-ayah mark with its number; an opening recited before ayah 1 (`ayah: 0`) has none.
    if (entry.ayah > 0) verse.append(" ", elementWith("span", { className: "end" }, "\u06DD" + arabicNumber(entry.ayah)));
    item.append(verse);
    return item;
  }));
}

/** The ayah at `index` of `list` is the one being recited (-1: none). */
export function showCurrentAyah(list, index) {
  for (const item of list.children) {
    const current = Number(item.dataset.index) === index;
    item.classList.toggle("current", current);
    if (current) item.setAttribute("aria-current", "true");
    else item.removeAttribute("aria-current");
  }
}

/** Each "Loop this ayah" of `list` is pressed when the review's `loop` is on that ayah. */
export function showAyahLoops(list, loop) {
  for (const button of list.querySelectorAll(".ayah-loop")) {
    const index = Number(button.closest("li").dataset.index);
    button.setAttribute("aria-pressed", String(loop.on && loop.ayah === index));
  }
}
