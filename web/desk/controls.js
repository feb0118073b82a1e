// The review's player controls and keys: play, ±5 s, speed (kept in this browser), the A–B loop
// and "loop this ayah", zoom, and what the page shows of them (the time, Play/Pause, the loop's
// ends, the current ayah). The review's state is review.js's `review` object, handed in.
//
// Keys (anywhere in the review, except in a text field or list box; keys.js says which does
// what): Space play/pause, ←/→ 5 s, `[` `]` slower/faster, `A` `B` the loop's ends, `L` loop
// on/off, `+` `-` zoom, Shift+←/→ previous/next ayah once aligned, `M` mark here, `,` `.` move
// the mark being made or edited by 0.1 s; Escape leaves a text field for the player.
import { ayahAt, ayahName, ayahStep, segmentsOf, timed } from "./ayahs.js";
import { elementWith } from "./dom.js";
import { reviewCommand, shortcutKey, typingIn } from "./keys.js";
import { markHere, nudgeMark } from "./marks.js";
import { showAyahLoops, showCurrentAyah } from "./passage.js";
import { clock, SKIP_SECONDS, SPEEDS } from "./player.js";

const $ = (id) => document.getElementById(id);

const SPEED_KEY = "tilawa-desk-speed";

/** The playback speed the coach chose last in this browser (1 when none, or storage is refused). */
export function keptSpeed() {
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

/** Wires the player's controls and the review's keys; `signal` ends every listener with the review. */
export function wireControls(review, signal) {
  const { player, waveform } = review;
  const audio = player.audio;
  const on = (target, type, handler) => target.addEventListener(type, handler, { signal });

  on($("play"), "click", () => togglePlay(review));
  on($("back-5"), "click", () => player.skip(-SKIP_SECONDS));
  on($("forward-5"), "click", () => player.skip(SKIP_SECONDS));
  const speed = $("speed");
  speed.replaceChildren(...SPEEDS.map((rate) => elementWith("option", { value: String(rate) }, `${rate}×`)));
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
export function loopAyah(review, index) {
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
  const ayahs = review.submission?.ayahs ?? [];
  const command = reviewCommand(shortcutKey(event), {
    shift: event.shiftKey, onLink: Boolean(target.closest?.("a[href], summary")), timed: timed(ayahs),
  });
  if (!command) return;
  COMMANDS[command](review, ayahs);
  event.preventDefault();
}

/** What each of keys.js's review commands does. */
const COMMANDS = {
  play: (review) => togglePlay(review),
  back: (review) => review.player.skip(-SKIP_SECONDS),
  forward: (review) => review.player.skip(SKIP_SECONDS),
  "previous-ayah": (review, ayahs) => stepAyah(review, ayahs, -1),
  "next-ayah": (review, ayahs) => stepAyah(review, ayahs, 1),
  slower: (review) => review.player.stepRate(-1),
  faster: (review) => review.player.stepRate(1),
  loop: (review) => toggleLoop(review),
  "set-a": (review) => setLoopEnd(review, "a"),
  "set-b": (review) => setLoopEnd(review, "b"),
  mark: (review) => markHere(review, review.player.currentTime),
  "mark-earlier": (review) => nudgeMark(review, -1),
  "mark-later": (review) => nudgeMark(review, 1),
  "zoom-in": (review) => zoom(review, -1),
  "zoom-out": (review) => zoom(review, 1),
};

/** Shift+← / Shift+→: to the start of the previous or next ayah with times (ayahs.js's ayahStep). */
function stepAyah(review, ayahs, direction) {
  const target = ayahStep(ayahs, review.player.currentTime, direction);
  if (target !== null) review.player.seek(target);
}

// MARK: What the page shows

export function status(text) {
  $("player-status").textContent = text;
}

/** Every frame while playing, and after each seek: the playhead, the time, the current ayah. */
export function frame(review, seconds) {
  review.waveform.setTime(seconds);
  showTime(review);
  const ayahs = review.submission?.ayahs ?? [];
  if (!timed(ayahs)) return;
  const index = ayahAt(ayahs, seconds);
  if (index === review.currentAyah) return;
  review.currentAyah = index;
  showCurrentAyah($("ayah-list"), index);
}

export function showTime(review) {
  const duration = review.player.duration(review.waveform.duration);
  const text = `${clock(review.player.currentTime)} / ${clock(duration)}`;
  if ($("time").textContent !== text) $("time").textContent = text;
}

export function showPlaying(review) {
  const playing = !review.player.paused;
  $("play").textContent = playing ? "Pause" : "Play";
}

export function showLoop(review) {
  const loop = review.playback.loop;
  $("loop").setAttribute("aria-pressed", String(loop.on));
  $("loop-a").textContent = loop.a === null ? "–" : clock(loop.a);
  $("loop-b").textContent = loop.b === null ? "–" : clock(loop.b);
  $("clear-loop").disabled = loop.a === null && loop.b === null && !loop.on;
  showAyahLoops($("ayah-list"), loop);
  review.waveform?.setSegments(segmentsOf(review.submission?.ayahs ?? [], loop));
}

export function showZoom(review) {
  $("zoom-in").disabled = !review.waveform.canZoom(-1);
  $("zoom-out").disabled = !review.waveform.canZoom(1);
}
