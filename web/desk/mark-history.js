// What the student was marked on before, by any coach: loaded once per review for the
// passage's surahs, shown under each ayah of the list and beside the mark form for the ayah
// chosen. A help beside the review: without it the page works on.
import { ayahName } from "./ayahs.js";
import { element, typed } from "./dom.js";
import { chosenAyah } from "./mark-form.js";
import { addHistory, ayahKey, MARK_KINDS } from "./marks-model.js";
import { day } from "./times.js";

const $ = (id) => document.getElementById(id);

/** The student's earlier marks on the passage's surahs (any coach), by ayah; this recording's own left out. */
export async function loadHistory(api, review, signal) {
  const marks = review.marks;
  const student = review.submission.student_id;
  const surahs = [...new Set((review.submission.ayahs ?? []).map((entry) => entry.surah))];
  for (const surah of surahs) {
    try {
      const page = await api.get(`/v1/students/${encodeURIComponent(student)}/annotations?surah=${surah}&limit=200`);
      if (signal.aborted) return;
      addHistory(marks.history, page.annotations ?? [], review.id);
    } catch {
      return; // the history is a help, not the review: without it the page works on
    }
  }
  showHistoryOnAyahs(review);
  showHistory(review);
}

/** An earlier mark as a list item: when and what (the page's words), then the coach's note in its own direction. */
function describe(note, className = "") {
  const when = day(note.created_at);
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

/** Beside the form: what was marked before on the ayah chosen. */
export function showHistory(review) {
  const chosen = chosenAyah();
  const earlier = chosen ? review.marks.history.get(ayahKey(chosen.surah, chosen.ayah)) ?? [] : [];
  $("mark-history").hidden = earlier.length === 0;
  $("mark-history-title").textContent = chosen ? `Marked before on ${ayahName(chosen)}` : "Marked before";
  $("mark-history-list").replaceChildren(...earlier.slice(0, 10).map((mark) => describe(mark, "mark")));
}
