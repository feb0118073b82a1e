// The review of one recording: who and what (student, kind, week, passage), the player and its
// waveform, and the passage ayah by ayah in Arabic. The review's state is the `review` object
// desk.js keeps in its state; this module renders it and wires the controls and keys.
//
// Keys (anywhere in the review, except in a text field or list box): Space play/pause, ←/→
// 5 s, `[` `]` slower/faster (0.5–1.5×, pitch kept), `A` `B` set the loop's ends, `L` loop
// on/off (A–B, else the whole recording), `+` `-` zoom; Shift+←/→ previous/next ayah once the
// recording's ayahs carry times (see ayahs.js: until then those are off and the page says so);
// `M` marks here, `,` `.` move the mark being made or edited by 0.1 s; `J` `K` next/previous recording of the queue (desk.js); Escape leaves a text
// field for the player. Letters work in any keyboard layout (dom.js: shortcutKey).
import { ApiError } from "./api.js";
import { arabicNumber, ayahAt, ayahName, ayahStep, basmalaListed, hasTimes, splitBasmala, timed } from "./ayahs.js";
import { closeMarks, markHere, moveMark, newMarks, nudgeMark, openMarks, renderMarks } from "./marks.js";
import { shortcutKey, typingIn } from "./dom.js";
import { clock, Player, SKIP_SECONDS, SPEEDS } from "./player.js";
import { KIND_LABEL } from "./queue.js";
import { closeReply, newReply, openReply, renderStored } from "./reply.js";
import { Waveform } from "./waveform.js";

const $ = (id) => document.getElementById(id);

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "className") node.className = value;
    else node.setAttribute(name, value);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A fresh review state for submission `id`, kept by desk.js. */
export function newReview(id) {
  return {
    id,
    submission: null,
    playback: { loop: { a: null, b: null, on: false, ayah: null } },
    currentAyah: -1,
    player: null,
    waveform: null,
    api: null,
    marks: newMarks(),
    reply: newReply(),
    listeners: new AbortController(),
  };
}

/**
 * Opens `review` (from newReview): reads the submission, renders it, loads the audio and
 * peaks, and wires the marks and the reply. `studentName` names the student (from the queue);
 * `session` is the desk's session (whether the coach places students).
 */
export async function openReview(api, review, { studentName, session, queueItem } = {}) {
  const signal = review.listeners.signal;
  review.api = api;
  review.session = session;
  $("review-error").hidden = true;
  $("review-body").hidden = true;
  $("review-title").textContent = studentName ?? "Recording";
  $("review-meta").textContent = "";
  $("review-passage").textContent = "";
  $("review-siblings").hidden = true;
  $("ayah-list").replaceChildren();
  try {
    review.submission = await api.get(`/v1/submissions/${encodeURIComponent(review.id)}`);
  } catch (error) {
    $("review-error").textContent = error instanceof ApiError && error.status === 404
      ? "This recording was not found among your students' recordings: it may have been withdrawn, or belong to another coach's student."
      : error instanceof ApiError ? error.message : String(error);
    $("review-error").hidden = false;
    return;
  }
  if (signal.aborted) return;
  const submission = review.submission;
  $("review-body").hidden = false;
  renderHeader(submission, queueItem, studentName);
  renderAyahs(review);

  const audio = $("audio");
  review.waveform = new Waveform({
    slider: $("waveform"), overview: $("overview"), zoomview: $("zoomview"),
    onSeek: (seconds) => review.player.seek(seconds),
    onPointMove: (id, seconds) => moveMark(review, id, seconds, () => refreshSubmission(review, signal)),
    signal,
  });
  review.player = new Player(audio, review.playback, (seconds) => frame(review, seconds), signal);
  review.player.load(submission.links?.audio ?? `/v1/submissions/${encodeURIComponent(review.id)}/audio`);
  // The speed the coach last chose carries over to the next recording (this browser only).
  review.player.setRate(keptSpeed());
  review.waveform.setPoints(points(review));
  wireControls(review, signal);
  const name = studentName ?? submission.student_id;
  const refresh = () => refreshSubmission(review, signal);
  openMarks(api, review, { seek: (seconds) => review.player.seek(seconds), refresh, currentTime: () => review.player.currentTime, signal });
  openReply(api, review, { session, studentName: name, refresh, signal });
  showLoop(review);
  showTime(review);
  showPlaying(review);
  showSiblings(api, review, signal);

  try {
    const peaks = await api.get(submission.links?.waveform ?? `/v1/submissions/${encodeURIComponent(review.id)}/waveform`);
    if (signal.aborted) return; // the coach left this review meanwhile
    review.waveform.setPeaks(peaks);
    showTime(review);
    showZoom(review);
  } catch (error) {
    if (!signal.aborted) status(error.message);
  }
}

/** Reads the submission again (after a mark, a reply, an answer) and shows what changed. */
async function refreshSubmission(review, signal) {
  const submission = await review.api.get(`/v1/submissions/${encodeURIComponent(review.id)}`);
  if (signal.aborted) return submission;
  review.submission = submission;
  renderMarks(review.api, review, { seek: (seconds) => review.player.seek(seconds), refresh: () => refreshSubmission(review, signal) });
  review.waveform?.setPoints(points(review));
  renderStored(review);
  return submission;
}

/** The marks along the waveform's top; the coach's own can be dragged (they carry their id). */
function points(review) {
  const own = review.session?.coach_id;
  return (review.submission?.annotations ?? []).map((note) => ({
    time: note.at_seconds, labelText: note.kind, ...(note.coach_id === own ? { id: note.id } : {}),
  }));
}

/** Leaves the review: the audio stops, recordings in progress end, every listener the review added goes. */
export function closeReview(review) {
  if (!review) return;
  closeMarks(review);
  closeReply(review);
  review.listeners.abort();
  review.player?.unload();
  review.waveform?.destroy();
}

const SPEED_KEY = "tilawa-desk-speed";

/** The playback speed the coach chose last in this browser (1 when none, or storage is refused). */
function keptSpeed() {
  try {
    const rate = Number(localStorage.getItem(SPEED_KEY));
    return SPEEDS.includes(rate) ? rate : 1;
  } catch {
    return 1;
  }
}

function keepSpeed(rate) {
  try {
    if (SPEEDS.includes(rate)) localStorage.setItem(SPEED_KEY, String(rate));
  } catch {
    // storage refused: the speed is this recording's only
  }
}

function renderHeader(submission, queueItem, studentName) {
  const summary = queueItem?.submission ?? {};
  const kind = KIND_LABEL[submission.kind] ?? submission.kind;
  const title = summary.title ? ` — ${summary.title}` : "";
  $("review-title").textContent = studentName ?? submission.student_id;
  $("review-meta").replaceChildren(submission.week ? `${kind} ${submission.week}${title}` : kind);
  if (submission.late) $("review-meta").append(element("span", { className: "tag late" }, "late"));
  $("review-passage").textContent = submission.passage ?? "";
  $("review-passage").hidden = !submission.passage;
}

/**
 * The student's other recordings of the same week (or end-of-course), from their timeline:
 * each opens its own review. A help beside the review: without it the page works on.
 */
async function showSiblings(api, review, signal) {
  const submission = review.submission;
  if (submission.kind !== "week" && submission.kind !== "eoc") return;
  let timeline;
  try {
    timeline = await api.get(`/v1/students/${encodeURIComponent(submission.student_id)}/timeline`);
  } catch {
    return;
  }
  if (signal.aborted) return;
  const list = submission.kind === "eoc" ? timeline.eoc?.submissions : timeline.weeks?.find((week) => week.number === submission.week)?.submissions;
  const others = (list ?? []).filter((entry) => entry.id !== submission.id)
    .sort((a, b) => Date.parse(a.received_at) - Date.parse(b.received_at));
  if (others.length === 0) return;
  const format = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  const mine = Date.parse(submission.received_at);
  const what = submission.kind === "eoc" ? "end-of-course" : `week ${submission.week}`;
  const line = $("review-siblings");
  line.replaceChildren(`The student's other recordings of ${what}: `);
  others.forEach((entry, index) => {
    if (index > 0) line.append(", ");
    const link = element("a", { href: `#/review/${encodeURIComponent(entry.id)}` },
      `${Date.parse(entry.received_at) < mine ? "earlier" : "later"}, ${format.format(new Date(entry.received_at))}`);
    line.append(link);
  });
  line.hidden = false;
}

/** The server's `ayahs_unavailable_reason` codes in words. */
const UNALIGNED = {
  no_ayahs: "the passage has no ayahs to find",
  no_speech: "no speech was found in it",
  too_few_pauses: "it has fewer pauses than the passage has ayahs",
  duration_mismatch: "its length does not fit the passage at any usual pace",
  poor_fit: "its pauses do not fit the passage's ayahs (another passage, or ayahs repeated or skipped?)",
  passage_changed: "the week's passage changed after it was recorded",
};

function renderAyahs(review) {
  const ayahs = review.submission.ayahs ?? [];
  const withTimes = timed(ayahs);
  const reason = review.submission.ayahs_unavailable_reason;
  $("ayahs-section").hidden = ayahs.length === 0;
  $("ayah-times").textContent = withTimes
    ? "Shift+← and Shift+→ go to the previous and next ayah; each ayah can be looped."
    : `Ayah markers are not available for this recording${reason ? ` — ${UNALIGNED[reason] ?? reason}` : " yet"}; looping an ayah and Shift+←/→ come with them.`;
  $("ayah-list").replaceChildren(...ayahs.map((entry, index) => {
    const item = element("li", { className: "ayah", "data-index": String(index) });
    const head = element("div", { className: "ayah-head" });
    if (withTimes && !hasTimes(entry)) {
      head.append(element("span", { className: "ref" }, ayahName(entry)),
        element("span", { className: "not-found" }, "not found: recited with the ayah before it, whose marker covers both"));
    } else if (withTimes) {
      const go = element("button", { type: "button", className: "ref", "aria-label": `Play from ${ayahName(entry)}` }, ayahName(entry));
      go.addEventListener("click", () => review.player.seek(entry.start_seconds));
      const loop = element("button", { type: "button", className: "ayah-loop", "aria-pressed": "false", "aria-label": `Loop ayah ${ayahName(entry)}` }, "Loop this ayah");
      loop.addEventListener("click", () => loopAyah(review, index));
      head.append(go, loop);
    } else {
      head.append(element("span", { className: "ref" }, ayahName(entry)));
    }
    item.append(head);
    // The basmala once: on its own line before ayah 1, or as its own entry when it was recited apart.
    const { basmala, text } = splitBasmala(entry);
    if (basmala && !basmalaListed(ayahs, index)) item.append(element("p", { className: "basmala", lang: "ar", dir: "rtl" }, basmala));
    const verse = element("p", { className: "verse", lang: "ar", dir: "rtl" }, text);
    // The end-of-ayah mark with its number; an opening recited before ayah 1 (`ayah: 0`) has none.
    if (entry.ayah > 0) verse.append(" ", element("span", { className: "end" }, "\u06DD" + arabicNumber(entry.ayah)));
    item.append(verse);
    return item;
  }));
  if (withTimes) {
    review.waveform?.setSegments(segments(review));
  }
}

function segments(review) {
  const ayahs = review.submission?.ayahs ?? [];
  const list = timed(ayahs) ? ayahs.filter(hasTimes).map((entry) => ({ startTime: entry.start_seconds, endTime: entry.end_seconds, labelText: ayahName(entry), kind: "ayah" })) : [];
  const loop = review.playback.loop;
  if (loop.a !== null && loop.b !== null) list.push({ startTime: Math.min(loop.a, loop.b), endTime: Math.max(loop.a, loop.b), labelText: "loop", kind: "loop" });
  return list;
}

// MARK: Controls

function wireControls(review, signal) {
  const { player, waveform } = review;
  const audio = player.audio;
  const on = (target, type, handler) => target.addEventListener(type, handler, { signal });

  on($("play"), "click", () => togglePlay(review));
  on($("back-5"), "click", () => player.skip(-SKIP_SECONDS));
  on($("forward-5"), "click", () => player.skip(SKIP_SECONDS));
  const speed = $("speed");
  speed.replaceChildren(...SPEEDS.map((rate) => element("option", { value: String(rate) }, `${rate}×`)));
  speed.value = String(player.rate);
  on(speed, "change", () => player.setRate(Number(speed.value)));
  on($("set-a"), "click", () => setLoopEnd(review, "a"));
  on($("set-b"), "click", () => setLoopEnd(review, "b"));
  on($("loop"), "click", () => toggleLoop(review));
  on($("clear-loop"), "click", () => clearLoop(review));
  on($("zoom-in"), "click", () => zoom(review, -1));
  on($("zoom-out"), "click", () => zoom(review, 1));

  on(audio, "loadedmetadata", () => { waveform.setDuration(player.duration()); showTime(review); showZoom(review); });
  on(audio, "durationchange", () => { waveform.setDuration(player.duration()); showTime(review); });
  on(audio, "timeupdate", () => showTime(review));
  on(audio, "play", () => showPlaying(review));
  on(audio, "pause", () => showPlaying(review));
  on(audio, "ended", () => showPlaying(review));
  on(audio, "ratechange", () => {
    speed.value = String(audio.playbackRate);
    status(`Speed ${audio.playbackRate}×`);
    keepSpeed(audio.playbackRate);
  });
  on(audio, "error", () => explainAudioError(review, signal));
  on(document, "keydown", (event) => key(review, event));
  showZoom(review);
}

/**
 * The <audio> element says only that it failed; the route says why. Its first byte is asked
 * for again, so a refusal shows the problem document's own sentence; when the route answers,
 * the browser could not decode what it got, and that is said.
 */
async function explainAudioError(review, signal) {
  const source = review.player.audio.currentSrc;
  if (!source) return;
  try {
    await review.api.get(source, { headers: { Range: "bytes=0-0" } });
    if (!signal.aborted) status(`This browser could not play the recording${review.player.audio.error?.message ? ` (${review.player.audio.error.message})` : ""}.`);
  } catch (error) {
    if (!signal.aborted) status(error.message);
  }
}

function togglePlay(review) {
  review.player.toggle().catch((error) => status(`The recording did not start: ${error.message}`));
}

function setLoopEnd(review, end) {
  const loop = review.playback.loop;
  loop[end] = review.player.currentTime;
  loop.ayah = null;
  if (loop.a !== null && loop.b !== null && Math.abs(loop.a - loop.b) < 0.1) loop[end === "a" ? "b" : "a"] = null;
  showLoop(review);
  status(`Loop ${end.toUpperCase()} at ${clock(loop[end])}`);
}

function toggleLoop(review) {
  const loop = review.playback.loop;
  loop.on = !loop.on;
  showLoop(review);
  const { a, b } = review.player.loopSpan();
  status(loop.on ? `Looping ${clock(a)}–${clock(b)}` : "Loop off");
  if (loop.on && (review.player.currentTime < a || review.player.currentTime > b)) review.player.seek(a);
}

function clearLoop(review) {
  review.playback.loop = Object.assign(review.playback.loop, { a: null, b: null, on: false, ayah: null });
  showLoop(review);
  status("Loop cleared");
}

/** "Loop this ayah": the loop becomes the ayah's span (again: off). Only offered with times. */
function loopAyah(review, index) {
  const entry = review.submission.ayahs[index];
  const loop = review.playback.loop;
  if (loop.on && loop.ayah === index) return clearLoop(review);
  Object.assign(loop, { a: entry.start_seconds, b: entry.end_seconds, on: true, ayah: index });
  review.player.seek(entry.start_seconds);
  showLoop(review);
  status(`Looping ayah ${ayahName(entry)}`);
}

function zoom(review, direction) {
  const seconds = review.waveform.zoom(direction);
  showZoom(review);
  status(`The zoom view shows ${seconds} s`);
}

/**
 * The review's keys, in any keyboard layout (`shortcutKey`). In a text field they are the
 * field's, except Escape, which leaves it for the player. Space plays or pauses wherever else
 * the focus is — on a button too: it never presses again the last button clicked (Enter
 * does); a link or a disclosure keeps its own Space.
 */
function key(review, event) {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (typingIn(target)) {
    if (event.key === "Escape") {
      event.preventDefault();
      $("play").focus();
    }
    return;
  }
  const onLink = target.closest?.("a[href], summary");
  const ayahs = review.submission?.ayahs ?? [];
  const pressed = shortcutKey(event);
  let handled = true;
  switch (pressed) {
    case " ":
      if (onLink) return;
      togglePlay(review);
      break;
    case "ArrowLeft":
    case "ArrowRight": {
      const direction = pressed === "ArrowRight" ? 1 : -1;
      if (!event.shiftKey) {
        review.player.skip(direction * SKIP_SECONDS);
      } else if (timed(ayahs)) {
        const target = ayahStep(ayahs, review.player.currentTime, direction);
        if (target !== null) review.player.seek(target);
      } else {
        handled = false;
      }
      break;
    }
    case "[": review.player.stepRate(-1); break;
    case "]": review.player.stepRate(1); break;
    case "l": toggleLoop(review); break;
    case "a": setLoopEnd(review, "a"); break;
    case "b": setLoopEnd(review, "b"); break;
    case "m": markHere(review, review.player.currentTime); break;
    case ",": nudgeMark(review, -1); break;
    case ".": nudgeMark(review, 1); break;
    case "+": case "=": zoom(review, -1); break;
    case "-": zoom(review, 1); break;
    default: handled = false;
  }
  if (handled) event.preventDefault();
}

// MARK: What the page shows

function status(text) {
  $("player-status").textContent = text;
}

/** Every frame while playing, and after each seek: the playhead, the time, the current ayah. */
function frame(review, seconds) {
  review.waveform.setTime(seconds);
  showTime(review);
  const ayahs = review.submission?.ayahs ?? [];
  if (!timed(ayahs)) return;
  const index = ayahAt(ayahs, seconds);
  if (index === review.currentAyah) return;
  review.currentAyah = index;
  for (const item of $("ayah-list").children) {
    const current = Number(item.dataset.index) === index;
    item.classList.toggle("current", current);
    if (current) item.setAttribute("aria-current", "true");
    else item.removeAttribute("aria-current");
  }
}

function showTime(review) {
  const duration = review.player.duration(review.waveform.duration);
  const text = `${clock(review.player.currentTime)} / ${clock(duration)}`;
  if ($("time").textContent !== text) $("time").textContent = text;
}

function showPlaying(review) {
  const playing = !review.player.paused;
  $("play").textContent = playing ? "Pause" : "Play";
}

function showLoop(review) {
  const loop = review.playback.loop;
  $("loop").setAttribute("aria-pressed", String(loop.on));
  $("loop-a").textContent = loop.a === null ? "–" : clock(loop.a);
  $("loop-b").textContent = loop.b === null ? "–" : clock(loop.b);
  $("clear-loop").disabled = loop.a === null && loop.b === null && !loop.on;
  for (const button of document.querySelectorAll("#ayah-list .ayah-loop")) {
    const index = Number(button.closest("li").dataset.index);
    button.setAttribute("aria-pressed", String(loop.on && loop.ayah === index));
  }
  review.waveform?.setSegments(segments(review));
}

function showZoom(review) {
  $("zoom-in").disabled = !review.waveform.canZoom(-1);
  $("zoom-out").disabled = !review.waveform.canZoom(1);
}
