// The reply once it is stored, under its recording: when, by whom, the result, the notes, its
// audio once encoded, and the student's questions about it with the coach's answers (by text
// or voice, `POST /v1/feedback/<id>/comments`).
import { element, typed } from "./dom.js";
import { moment } from "./times.js";

const $ = (id) => document.getElementById(id);

/** The stored reply under its recording: when, the result, the notes, its audio, the thread. */
export function renderStored(review) {
  const ready = (review.submission?.feedback ?? [])[0] ?? null;
  const stored = ready ?? review.reply?.sent ?? null;
  $("reply-compose").hidden = Boolean(stored);
  $("reply-sent").hidden = !stored;
  $("reply-title").textContent = stored ? "Your reply" : "Reply";
  if (!stored) return;
  const parts = [`Sent ${moment(stored.received_at)}`];
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
    item.append(element("span", "who", `${who}, ${moment(comment.created_at)}`));
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

/** Sends the answer typed (and the voice answer recorded, if any) to the student's questions. */
export async function answer(api, review, refresh) {
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
