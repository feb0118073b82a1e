// The reply, recorded in place and bound to its recording. The take is recorded here
// (recorder.js), listened to, and sent to `POST /v1/submissions/<id>/feedback` — the id of the
// review it was recorded in, which the send button names (student, week, when the recording
// came in). Each take has its own Idempotency-Key (one per result chosen), so pressing send
// again after a lost answer stores one reply, never two. Once stored, the reply is shown
// under the recording with its notes, result and question thread, answered by text or voice.
// An end-of-course reply must carry its result; a placing coach places an assessment here.
// Until it is stored, the take, its notes, its result and its keys are a draft in the browser
// (drafts.js): leaving, a reload or an ended session loses none of it.
//
// The composer's view is reply-view.js's, its draft reply-draft.js's, the stored reply and its
// thread reply-thread.js's, the placement placement.js's.
import { ApiError, newIdempotencyKey } from "./api.js";
import { deleteDraft } from "./drafts.js";
import { flushDeletes } from "./marks.js";
import { openPlacement } from "./placement.js";
import { clock } from "./player.js";
import { KIND_LABEL } from "./queue.js";
import { ClipRecorder, Recorder } from "./recorder.js";
import { keepDraft, restoreDraft } from "./reply-draft.js";
import { answer, renderStored } from "./reply-thread.js";
import { chosenResult, replyStatus, showTake } from "./reply-view.js";
import { moment } from "./times.js";

const REPLY_MAX_SECONDS = 600;
const $ = (id) => document.getElementById(id);

/** A new reply state, kept in the review. */
export function newReply() {
  return {
    recorder: null, take: null, sending: false, sent: null, answer: { clip: null, busy: false },
    // The draft: whose and which (set by openReply), whether the take is kept, a pending save of typed notes.
    owner: null, kept: false, saving: null,
  };
}

/** What the reply answers, in words: the student, the kind and week, when the recording came in. */
export function replyTarget(submission, studentName) {
  const kind = KIND_LABEL[submission.kind] ?? submission.kind;
  const what = submission.week ? `${kind} ${submission.week}` : kind;
  return `${studentName} · ${what} · the recording received ${moment(submission.received_at)}`;
}

/**
 * Wires the reply panel of `review`: the composer while no reply is stored, else the stored
 * reply and its thread; the placement panel for a placing coach on an assessment.
 * `refresh()` reads the submission again (and re-renders the review's parts that show it).
 */
export function openReply(api, review, { session, studentName, refresh, signal }) {
  const reply = review.reply;
  const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
  const submission = review.submission;
  reply.owner = session?.coach_id ? { coachId: session.coach_id, submissionId: submission.id } : null;
  $("reply-target").textContent = `Replying to ${replyTarget(submission, studentName)}`;
  $("reply-send").textContent = `Send reply to ${studentName}`;
  $("reply-result").hidden = submission.kind !== "eoc";
  for (const radio of document.querySelectorAll("#reply-result input")) radio.checked = false;
  $("reply-notes").value = "";
  $("answer-text").value = "";
  replyStatus("");
  $("answer-status").textContent = "";
  showTake(reply);

  on($("reply-record"), "click", () => toggleRecording(review, signal));
  on($("reply-send"), "click", () => send(api, review, refresh, signal));
  // Send, and once the reply is stored, on to the queue's next recording (desk.js).
  on($("reply-send-next"), "click", async () => {
    if (await send(api, review, refresh, signal) && !signal.aborted) document.dispatchEvent(new CustomEvent("desk:next"));
  });
  on($("answer-form"), "submit", (event) => { event.preventDefault(); answer(api, review, refresh); });
  reply.answer.clip = new ClipRecorder({
    button: $("answer-record"), node: $("answer-take"), name: "voice answer", idle: "Answer by voice",
    maxSeconds: 180, onError: (sentence) => { $("answer-status").textContent = sentence; },
  });
  on($("answer-record"), "click", () => reply.answer.clip.toggle(signal));
  on($("reply-discard"), "click", () => {
    discard(reply);
    showTake(reply);
    keepDraft(review);
    replyStatus("The take is discarded.");
    $("reply-record").focus();
  });
  // Typed notes and a chosen result are kept as the draft as they change (a moment after the last key).
  const later = () => {
    clearTimeout(reply.saving);
    reply.saving = setTimeout(() => { reply.saving = null; keepDraft(review); }, 400);
  };
  on($("reply-notes"), "input", later);
  // So are a mark's note being written and an answer to the student being typed.
  on($("mark-text"), "input", later);
  on($("answer-text"), "input", later);
  on($("reply-result"), "change", () => keepDraft(review));
  // A reload loses nothing once the take is kept; until then (recording, sending, or no
  // drafts in this browser) the browser asks first, as it does for a recorded correction
  // not yet on a mark.
  on(window, "beforeunload", (event) => {
    const clip = review.marks?.clip;
    if (reply.sending || reply.recorder?.recording || (reply.take && !reply.kept) || clip?.take || clip?.recording) event.preventDefault();
  });
  renderStored(review);
  restoreDraft(api, review, refresh, signal);
  openPlacement(api, review, { session, studentName, refresh, on });
}

export function closeReply(review) {
  const reply = review.reply;
  if (!reply) return;
  // Notes typed in the last moment are kept before the page moves on.
  if (reply.saving) {
    clearTimeout(reply.saving);
    reply.saving = null;
    keepDraft(review);
  }
  reply.recorder?.cancel();
  reply.answer.clip?.cancel();
  discard(reply);
}

function discard(reply) {
  if (reply.take?.url) URL.revokeObjectURL(reply.take.url);
  reply.take = null;
  reply.kept = false;
}

async function toggleRecording(review, signal) {
  const reply = review.reply;
  const button = $("reply-record");
  if (reply.recorder?.recording) {
    const take = await reply.recorder.stop();
    reply.recorder = null;
    button.classList.remove("recording");
    $("reply-level").style.width = "0";
    if (signal.aborted) return;
    if (!take) return replyStatus("Nothing was recorded; check the microphone and record again.");
    discard(reply);
    reply.take = { ...take, url: URL.createObjectURL(take.blob) };
    showTake(reply);
    replyStatus(`Recorded ${clock(take.seconds)}. Listen, then send.`);
    $("reply-preview").focus();
    if (!(await keepDraft(review)) && !signal.aborted) {
      replyStatus(`Recorded ${clock(take.seconds)}. Listen, then send. This browser cannot keep unsent replies: send it before you leave this recording.`);
    }
    return;
  }
  if (reply.sending) return;
  review.player?.audio.pause();
  reply.recorder = new Recorder({
    maxSeconds: REPLY_MAX_SECONDS,
    onLevel: (level, seconds) => {
      $("reply-level").style.width = `${Math.round(Math.sqrt(level) * 100)}%`;
      $("reply-clock").textContent = clock(seconds);
    },
  });
  try {
    await reply.recorder.start();
    button.textContent = "Stop recording";
    button.classList.add("recording");
    replyStatus("Recording… press Stop recording when you have finished.");
  } catch (error) {
    reply.recorder = null;
    replyStatus(error.message);
  }
}

/** Sends the take (with its notes); true once the reply is stored. */
async function send(api, review, refresh, signal) {
  const reply = review.reply;
  const submission = review.submission;
  if (reply.sending) return;
  if (reply.recorder?.recording) return replyStatus("Stop the recording first, listen to it, then send.");
  if (!reply.take) {
    $("reply-record").focus();
    return replyStatus("Record your reply first.");
  }
  const result = submission.kind === "eoc" ? chosenResult() : null;
  if (submission.kind === "eoc" && !result) {
    document.querySelector("#reply-result input")?.focus();
    return replyStatus("Choose pass or retake: an end-of-course reply carries its result.");
  }
  // One key per take and result: a retry of the same send is recognised, another result is another request.
  const take = reply.take;
  const keyName = result ?? "";
  if (!take.keys) take.keys = new Map();
  if (!take.keys.has(keyName)) {
    take.keys.set(keyName, newIdempotencyKey());
    // The key is kept with the draft before the take leaves: after a reload, sending again is the same request.
    await keepDraft(review);
  }
  const query = result ? `?result=${result}` : "";
  const progress = $("reply-progress");
  // Not `disabled`: a disabled button drops the keyboard's focus. `reply.sending` refuses a second press.
  reply.sending = true;
  for (const id of ["reply-send", "reply-send-next", "reply-record"]) $(id).setAttribute("aria-disabled", "true");
  progress.hidden = false;
  progress.value = 0;
  replyStatus("Sending…");
  try {
    // A mark deleted a moment ago is gone before the reply carries the marks to the student.
    await flushDeletes(review);
    const answer = await api.upload(`/v1/submissions/${encodeURIComponent(submission.id)}/feedback${query}`, take.blob, {
      headers: { "Content-Type": take.type, "Idempotency-Key": take.keys.get(keyName) },
      onProgress: (sent, total) => { progress.value = total > 0 ? sent / total : 0; },
    });
    reply.sent = answer.body;
    clearTimeout(reply.saving);
    reply.saving = null;
    const notes = $("reply-notes").value.trim();
    replyStatus("");
    if (notes) {
      try {
        reply.sent = await api.send("PATCH", `/v1/feedback/${encodeURIComponent(answer.body.id)}`, { json: { notes } });
      } catch (error) {
        if (!signal.aborted) replyStatus(`The reply is sent, but its notes were not saved: ${error.message}`);
      }
    }
    discard(reply);
    if (reply.owner) await deleteDraft(reply.owner.coachId, reply.owner.submissionId);
    if (signal.aborted) return;
    await refresh();
    $("reply-sent-meta").focus();
    awaitReady(review, refresh, signal);
    return true;
  } catch (error) {
    if (signal.aborted) return;
    const retry = error instanceof ApiError && (error.status === 0 || error.status >= 500 || error.code === "idempotency_key_in_use");
    const kept = reply.kept ? " Your reply is kept here as a draft." : "";
    if (error instanceof ApiError && error.status === 401) {
      replyStatus(`Your desk session has ended.${kept} Sign in again with a new login link (another tab will do), then press send again.`);
    } else {
      replyStatus(retry ? `${error.message} Press send again: the reply will not be stored twice.` : `${error.message}${kept}`);
    }
  } finally {
    reply.sending = false;
    progress.hidden = true;
    for (const id of ["reply-send", "reply-send-next", "reply-record"]) $(id).removeAttribute("aria-disabled");
  }
}

/**
 * A reply is listed on its submission once it is encoded (`feedback`, newest first); until
 * then the page shows the reply the route answered with, and reads the submission again every
 * two seconds (for at most two minutes) until the reply is ready to play.
 */
async function awaitReady(review, refresh, signal) {
  for (let tries = 0; tries < 60 && !signal.aborted && !(review.submission?.feedback ?? []).length; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    if (!signal.aborted) await refresh().catch(() => {});
  }
}
