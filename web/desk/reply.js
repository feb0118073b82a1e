// The reply, recorded in place and bound to its recording. The take is recorded here
// (recorder.js), listened to, and sent to `POST /v1/submissions/<id>/feedback` — the id of the
// review it was recorded in, which the send button names (student, week, when the recording
// came in). Each take has its own Idempotency-Key (one per result chosen), so pressing send
// again after a lost answer stores one reply, never two. Once stored, the reply is shown
// under the recording with its notes, result and question thread, answered by text or voice.
// An end-of-course reply must carry its result; a placing coach places an assessment here.
// Until it is stored, the take, its notes, its result and its keys are a draft in the browser
// (drafts.js): leaving, a reload or an ended session loses none of it.
import { ApiError, newIdempotencyKey } from "./api.js";
import { deleteDraft, loadDraft, saveDraft } from "./drafts.js";
import { element, typed } from "./dom.js";
import { flushDeletes, markDraft, restoreMarkDraft } from "./marks.js";
import { clock } from "./player.js";
import { KIND_LABEL } from "./queue.js";
import { ClipRecorder, Recorder } from "./recorder.js";

const REPLY_MAX_SECONDS = 600;
const $ = (id) => document.getElementById(id);

const when = (iso) => new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" })
  .format(new Date(iso));

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
  return `${studentName} · ${what} · the recording received ${when(submission.received_at)}`;
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
  // drafts in this browser) the browser asks first.
  on(window, "beforeunload", (event) => {
    if (reply.sending || reply.recorder?.recording || (reply.take && !reply.kept)) event.preventDefault();
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

function replyStatus(text) {
  $("reply-status").textContent = text;
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

/**
 * Keeps the reply's unsent state as its recording's draft (or removes the draft when nothing is
 * left); resolves true once kept. What is kept is read at once: the page may move on meanwhile.
 */
async function keepDraft(review) {
  const reply = review.reply;
  if (!reply.owner) return false;
  const { coachId, submissionId } = reply.owner;
  const stored = Boolean((review.submission?.feedback ?? [])[0] ?? reply.sent);
  const take = stored ? null : reply.take;
  // Once the reply is stored, the composer's fields are not the coach's work any more.
  const notes = stored ? "" : $("reply-notes").value;
  const result = stored ? null : chosenResult();
  const mark = markDraft(review);
  const answer = stored ? $("answer-text").value : "";
  if (!take && !notes.trim() && !result && !mark && !answer.trim()) {
    reply.kept = false;
    await deleteDraft(coachId, submissionId);
    return true;
  }
  const draft = {
    take: take ? { blob: take.blob, type: take.type, seconds: take.seconds, keys: Object.fromEntries(take.keys ?? []) } : null,
    notes, result, mark, answer,
  };
  const kept = await saveDraft(coachId, submissionId, draft);
  if (reply.take === take) reply.kept = kept && Boolean(take);
  return kept;
}

/**
 * Restores the recording's draft, if any: the take to listen to and send, the notes, the
 * result. A draft of a recording already answered is removed (its notes saved on the stored
 * reply when that has none and the draft's take was sent: a reply stored before its answer
 * was lost on the way).
 */
async function restoreDraft(api, review, refresh, signal) {
  const reply = review.reply;
  if (!reply.owner) return;
  const { coachId, submissionId } = reply.owner;
  const draft = await loadDraft(coachId, submissionId);
  if (!draft || signal.aborted) return;
  const stored = (review.submission?.feedback ?? [])[0] ?? null;
  const mark = restoreMarkDraft(review, draft.mark);
  if (stored || reply.sent) {
    // An answer being typed and a mark being written outlive the reply; the composer's part does not.
    const answer = draft.answer?.trim() ? draft.answer : "";
    if (answer && !$("answer-text").value) {
      $("answer-text").value = answer;
      $("answer-status").textContent = "Your unsent answer is back.";
    }
    if (answer || mark) {
      await saveDraft(coachId, submissionId, { take: null, notes: "", result: null, mark: draft.mark ?? null, answer });
    } else {
      await deleteDraft(coachId, submissionId);
    }
    const notes = draft.notes?.trim();
    // Its notes go on the stored reply only when this draft's take was sent (it holds a send's
    // key): the answer was lost after the reply was stored. A reply sent from elsewhere keeps its own.
    const sent = Object.keys(draft.take?.keys ?? {}).length > 0;
    if (stored && notes && !stored.notes && sent) {
      try {
        await api.send("PATCH", `/v1/feedback/${encodeURIComponent(stored.id)}`, { json: { notes } });
        if (!signal.aborted) await refresh();
      } catch {
        // the reply stands; its notes can be written again
      }
    }
    return;
  }
  if (draft.take?.blob && !reply.take && !reply.recorder?.recording) {
    const take = draft.take;
    reply.take = { blob: take.blob, type: take.type, seconds: take.seconds, keys: new Map(Object.entries(take.keys ?? {})), url: URL.createObjectURL(take.blob) };
    reply.kept = true;
    showTake(reply);
  }
  // What the coach has typed or chosen since opening wins over the draft.
  if (draft.notes && !$("reply-notes").value) $("reply-notes").value = draft.notes;
  if (draft.result && !chosenResult()) {
    const radio = document.querySelector(`#reply-result input[value="${CSS.escape(draft.result)}"]`);
    if (radio) radio.checked = true;
  }
  const saved = new Intl.DateTimeFormat(undefined, { weekday: "short", hour: "2-digit", minute: "2-digit" }).format(new Date(draft.savedAt));
  if (draft.take || draft.notes?.trim() || draft.result) {
    replyStatus(draft.take ? `Your unsent reply (${clock(draft.take.seconds)}, kept ${saved}) is back: listen, then send.`
      : `Your unsent notes (kept ${saved}) are back.`);
  }
}

function showTake(reply) {
  const take = reply.take;
  $("reply-take").hidden = !take;
  const preview = $("reply-preview");
  if (take) {
    if (preview.src !== take.url) preview.src = take.url;
    $("reply-clock").textContent = clock(take.seconds);
  } else {
    preview.removeAttribute("src");
    $("reply-clock").textContent = "0:00";
  }
  // Once there is a take, the record button records it again (the new take replaces it when stopped).
  $("reply-record").textContent = reply.recorder?.recording ? "Stop recording" : take ? "Record again" : "Record reply";
}

function chosenResult() {
  return document.querySelector("#reply-result input:checked")?.value ?? null;
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

/** The stored reply under its recording: when, the result, the notes, its audio, the thread. */
export function renderStored(review) {
  const ready = (review.submission?.feedback ?? [])[0] ?? null;
  const stored = ready ?? review.reply?.sent ?? null;
  $("reply-compose").hidden = Boolean(stored);
  $("reply-sent").hidden = !stored;
  $("reply-title").textContent = stored ? "Your reply" : "Reply";
  if (!stored) return;
  const parts = [`Sent ${when(stored.received_at)}`];
  if (stored.coach_name) parts.push(`by ${stored.coach_name}`);
  if (stored.result) parts.push(`result: ${stored.result === "pass" ? "pass" : "retake"}`);
  if (!ready) parts.push("being prepared: the student is told once it is ready");
  $("reply-sent-meta").textContent = parts.join(" · ");
  $("reply-sent-meta").tabIndex = -1;
  const audio = $("reply-audio");
  const link = ready ? stored.links?.audio : null;
  audio.hidden = !link;
  if (link && audio.getAttribute("src") !== link) audio.src = link;
  $("reply-sent-notes").textContent = stored.notes ?? "";
  $("reply-sent-notes").hidden = !stored.notes;
  const comments = stored.comments ?? [];
  $("thread").replaceChildren(...comments.map((comment) => {
    const item = element("li", comment.author === "student" ? "question" : "answer");
    const who = comment.author === "student" ? "Student" : "Coach";
    item.append(element("span", "who", `${who}, ${when(comment.created_at)}`));
    if (comment.text) item.append(typed(comment.text, "", "p"));
    if (comment.audio?.links?.audio) {
      const clip = element("audio");
      clip.controls = true;
      clip.preload = "none";
      clip.src = comment.audio.links.audio;
      item.append(clip);
    }
    if (comment.author === "student" && !comment.answered_at) item.append(element("span", "tag late", "open"));
    return item;
  }));
  // The thread and its answer form appear once the student has written.
  $("thread-title").hidden = comments.length === 0;
  $("answer-form").hidden = comments.length === 0;
}

async function answer(api, review, refresh) {
  const state = review.reply.answer;
  const stored = (review.submission?.feedback ?? [])[0] ?? review.reply.sent;
  if (!stored || state.busy) return;
  const text = $("answer-text").value.trim();
  const take = state.clip.take;
  if (state.clip.recording) return void ($("answer-status").textContent = "Stop the voice answer's recording first.");
  if (!text && !take) return void ($("answer-status").textContent = "Write an answer or record one.");
  const path = `/v1/feedback/${encodeURIComponent(stored.id)}/comments`;
  state.busy = true;
  try {
    if (take) {
      await api.upload(text ? `${path}?text=${encodeURIComponent(text)}` : path, take.blob, { headers: { "Content-Type": take.type } });
      state.clip.discard();
      state.clip.show();
    } else {
      await api.send("POST", path, { json: { text } });
    }
    $("answer-text").value = "";
    $("answer-text").dispatchEvent(new Event("input"));
    $("answer-status").textContent = "Answer sent; the student is told.";
    await refresh();
  } catch (error) {
    $("answer-status").textContent = error.message;
  } finally {
    state.busy = false;
  }
}

// MARK: Placement (a placing coach, on a placement assessment)

function openPlacement(api, review, { session, studentName, refresh, on }) {
  const submission = review.submission;
  const choices = session?.placement;
  const show = submission.kind === "assessment" && session?.places && choices;
  $("placement").hidden = !show;
  $("placement-status").textContent = "";
  if (!show) return;
  const option = ({ id, name }) => Object.assign(element("option", "", name), { value: id });
  $("place-level").replaceChildren(...choices.levels.map(option));
  $("place-coach").replaceChildren(...choices.coaches.map(option));
  $("place-coach").value = session.coach_id;
  $("placement-title").textContent = `Place ${studentName}`;
  on($("placement-form"), "submit", async (event) => {
    event.preventDefault();
    const level = $("place-level").selectedOptions[0];
    const coach = $("place-coach").selectedOptions[0];
    $("place-send").disabled = true;
    try {
      await api.send("PUT", `/v1/students/${encodeURIComponent(submission.student_id)}/placement`,
        { json: { level_id: level.value, coach_id: coach.value } });
      $("placement-status").textContent = `${studentName} is placed in ${level.textContent} with ${coach.textContent}; the student is told.`;
      await refresh();
    } catch (error) {
      $("placement-status").textContent = error.message;
    } finally {
      $("place-send").disabled = false;
    }
  });
}
