// A submission's passage, ayah by ayah: the text as Tanzil gives it (never changed), the
// basmala split onto a line of its own at display time, and — once a recording is aligned —
// where each ayah starts and ends in it.
//
// Ayah markers (`start_seconds`, `end_seconds`) come once the recording is encoded and aligned.
// Everything here that needs them asks `timed(ayahs)` first; while it is false the review hides
// "loop this ayah" and Shift+←/→ does nothing, and the list says why. An ayah recited without a
// pause after the one before it has no times of its own (`hasTimes` false): the one before it
// covers both, and the list says so.

const ARABIC_DIGITS = "٠١٢٣٤٥٦٧٨٩";

/** The number in Arabic-Indic digits, as printed in a mushaf's end-of-ayah mark. */
export function arabicNumber(number) {
  return String(number).replace(/[0-9]/g, (digit) => ARABIC_DIGITS[digit]);
}

// The basmala's letters, word by word, without marks (Tanzil's 1:1 with its harakat removed).
const BASMALA_LETTERS = ["بسم", "ٱلله", "ٱلرحمـن", "ٱلرحيم"];
const letters = (word) => word.replace(/\p{Mn}/gu, "");

/**
 * Tanzil prefixes the basmala to ayah 1 of every surah but 1 (where it is ayah 1) and 9
 * (which has none): the first four words of that text when their letters are the basmala's
 * (in 95 and 97 the first letter carries a shadda, `بِّسْمِ`), as the server's own split
 * (TilawaQuran's `displayText`) decides it. Returns `{basmala, text}`, `basmala` null when
 * there is none.
 */
export function splitBasmala({ surah, ayah, text }) {
  if (ayah !== 1 || surah === 1 || surah === 9) return { basmala: null, text };
  const words = text.split(" ");
  if (words.length <= 4 || !BASMALA_LETTERS.every((word, index) => letters(words[index]) === word)) return { basmala: null, text };
  return { basmala: words.slice(0, 4).join(" "), text: words.slice(4).join(" ") };
}

/** Whether an entry carries its times in the recording. */
export function hasTimes(entry) {
  return Number.isFinite(entry.start_seconds) && Number.isFinite(entry.end_seconds);
}

/** Whether the recording was aligned: its ayahs carry times (all but any run into the one before). */
export function timed(ayahs) {
  return ayahs.some(hasTimes);
}

/** The index of the ayah being recited at `seconds` (the last one with times started), or -1. */
export function ayahAt(ayahs, seconds) {
  let found = -1;
  ayahs.forEach((entry, index) => {
    if (hasTimes(entry) && entry.start_seconds <= seconds + 0.001) found = index;
  });
  return found;
}

/**
 * Where Shift+← / Shift+→ go from `seconds`: the start of the next ayah with times, or of the
 * current one — or the previous one when within a second of the current one's start, as a
 * player's "previous track" does. Null when there is nowhere to go.
 */
export function ayahStep(ayahs, seconds, direction) {
  const starts = ayahs.filter(hasTimes).map((entry) => entry.start_seconds);
  let index = -1;
  starts.forEach((start, at) => {
    if (start <= seconds + 0.001) index = at;
  });
  if (direction > 0) return index + 1 < starts.length ? starts[index + 1] : null;
  if (index < 0) return null;
  if (seconds - starts[index] > 1 || index === 0) return starts[index];
  return starts[index - 1];
}

const ISTIADHA_START = "أَعُوذُ";

/**
 * What an `ayah` 0 entry is: "istiadha" or "basmala" (the server's `opening`; from its text
 * for a server that does not say), null for an ayah. A mark on ayah 0 carries no text: null.
 */
export function openingOf(entry) {
  if (entry.ayah !== 0) return null;
  if (entry.opening) return entry.opening;
  if (!entry.text) return null;
  return entry.text.startsWith(ISTIADHA_START) ? "istiadha" : "basmala";
}

/** A short name of an ayah for buttons and announcements: "104:3", "Isti'adha before 104:1", "Basmala before 104:1". */
export function ayahName(entry) {
  if (entry.ayah !== 0) return `${entry.surah}:${entry.ayah}`;
  const opening = openingOf(entry);
  const what = opening === "istiadha" ? "Isti'adha" : opening === "basmala" ? "Basmala" : "Opening";
  return `${what} before ${entry.surah}:1`;
}

/** Whether entry `index` is an ayah 1 whose basmala was recited (and is listed) just before it: it is shown once. */
export function basmalaListed(ayahs, index) {
  const entry = ayahs[index];
  const before = ayahs[index - 1];
  return entry?.ayah === 1 && before !== undefined && before.surah === entry.surah && openingOf(before) === "basmala";
}

/** The server's `ayahs_unavailable_reason` codes in words. */
const UNALIGNED = {
  no_ayahs: "the passage has no ayahs to find",
  no_speech: "no speech was found in it",
  too_few_pauses: "it has fewer pauses than the passage has ayahs",
  duration_mismatch: "its length does not fit the passage at any usual pace",
  poor_fit: "its pauses do not fit the passage's ayahs (another passage, or ayahs repeated or skipped?)",
  sound_mismatch: "its sounds do not match the passage's letters (another passage?)",
  passage_changed: "the week's passage changed after it was recorded",
};

/**
 * The help line above the ayah list: with times, what Shift+←/→ and the loops do (an ayah run
 * into the one before it has no marker and no loop of its own: the line says so); without,
 * why not (`reason`, the server's `ayahs_unavailable_reason`).
 */
export function alignmentNote(ayahs, reason) {
  const withTimes = timed(ayahs);
  const notFound = withTimes && !ayahs.every(hasTimes);
  return withTimes
    ? `Shift+← and Shift+→ go to the previous and next ayah; each ayah ${notFound ? "with a marker " : ""}can be looped.`
    : `Ayah markers are not available for this recording${reason ? ` — ${UNALIGNED[reason] ?? reason}` : " yet"}; looping an ayah and Shift+←/→ come with them.`;
}

/**
 * The waveform's bands (peaks.js's segment fields): each ayah with times, named, once the
 * recording is aligned; then the A–B `loop` when both its ends are set.
 */
export function segmentsOf(ayahs, loop) {
  const list = timed(ayahs) ? ayahs.filter(hasTimes).map((entry) => ({ startTime: entry.start_seconds, endTime: entry.end_seconds, labelText: ayahName(entry), kind: "ayah" })) : [];
  if (loop.a !== null && loop.b !== null) list.push({ startTime: Math.min(loop.a, loop.b), endTime: Math.max(loop.a, loop.b), labelText: "loop", kind: "loop" });
  return list;
}
