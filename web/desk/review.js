// The review of one recording: who and what (student, kind, week, passage), the player and its
// waveform, and the passage ayah by ayah in Arabic. The review's state is the `review` object
// desk.js keeps in its state; this module renders it and wires the controls and keys.
//
// Keys (anywhere in the review, except in a text field or list box): Space play/pause, ←/→
// 5 s, `[` `]` slower/faster (0.5–1.5×, pitch kept), `A` `B` set the loop's ends, `L` loop
// on/off (A–B, else the whole recording), `+` `-` zoom; Shift+←/→ previous/next ayah once the
// recording's ayahs carry times (see ayahs.js: until then those are off and the page says so);
// `M` marks here, `,` `.` move the mark being made or edited by 0.1 s; `J` `K` next/previous recording of the queue (desk.js); Escape leaves a text
// field for the player. Letters work in any keyboard layout (keys.js: shortcutKey).
//
// The controls and keys are controls.js's, the passage passage.js's, the marks marks.js's, the
// reply reply.js's; this module opens and closes the review and shows who and what.
import { ApiError } from "./api.js";
import { frame, keptSpeed, loopAyah, showLoop, showPlaying, showTime, showZoom, status, wireControls } from "./controls.js";
import { elementWith } from "./dom.js";
import { markPoints } from "./marks-model.js";
import { closeMarks, moveMark, newMarks, openMarks, renderMarks } from "./marks.js";
import { renderPassage } from "./passage.js";
import { Player } from "./player.js";
import { KIND_LABEL } from "./queue.js";
import { closeReply, newReply, openReply } from "./reply.js";
import { renderStored } from "./reply-thread.js";
import { moment } from "./times.js";
import { Waveform } from "./waveform.js";

const $ = (id) => document.getElementById(id);

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
  // Until the recording is read the page says so (the heading already names the student).
  $("review-loading").hidden = false;
  try {
    review.submission = await api.get(`/v1/submissions/${encodeURIComponent(review.id)}`);
  } catch (error) {
    if (signal.aborted) return; // the coach left this review meanwhile: the one open now says its own
    $("review-loading").hidden = true;
    $("review-error").textContent = error instanceof ApiError && error.status === 404
      ? "This recording was not found among your students' recordings: it may have been withdrawn, or belong to another coach's student."
      : error instanceof ApiError ? error.message : "The desk could not read this recording's details; reload the page to try again.";
    $("review-error").hidden = false;
    return;
  }
  if (signal.aborted) return;
  $("review-loading").hidden = true;
  const submission = review.submission;
  $("review-body").hidden = false;
  renderHeader(submission, queueItem, studentName);
  renderPassage({ section: $("ayahs-section"), note: $("ayah-times"), list: $("ayah-list") }, submission, {
    seek: (seconds) => review.player.seek(seconds), loopAyah: (index) => loopAyah(review, index),
  });

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
  return markPoints(review.submission?.annotations ?? [], review.session?.coach_id);
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

function renderHeader(submission, queueItem, studentName) {
  const summary = queueItem?.submission ?? {};
  const kind = KIND_LABEL[submission.kind] ?? submission.kind;
  const title = summary.title ? ` — ${summary.title}` : "";
  $("review-title").textContent = studentName ?? submission.student_id;
  $("review-meta").replaceChildren(submission.week ? `${kind} ${submission.week}${title}` : kind);
  if (submission.late) $("review-meta").append(elementWith("span", { className: "tag late" }, "late"));
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
  const mine = Date.parse(submission.received_at);
  const what = submission.kind === "eoc" ? "end-of-course" : `week ${submission.week}`;
  const line = $("review-siblings");
  line.replaceChildren(`The student's other recordings of ${what}: `);
  others.forEach((entry, index) => {
    if (index > 0) line.append(", ");
    const link = elementWith("a", { href: `#/review/${encodeURIComponent(entry.id)}` },
      `${Date.parse(entry.received_at) < mine ? "earlier" : "later"}, ${moment(entry.received_at)}`);
    line.append(link);
  });
  line.hidden = false;
}
