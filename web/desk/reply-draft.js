// The reply's draft on the page: its unsent state (the take, the notes, the result, a mark
// being written, an answer being typed) kept for its recording as it changes, and put back when
// the recording is opened again. What a draft holds is drafts-model.js's; where, drafts.js's.
import { deleteDraft, loadDraft, saveDraft } from "./drafts.js";
import { answerOf, draftAfterReply, draftOf, notesForStored, restoredSentence, takeOf } from "./drafts-model.js";
import { markDraft, restoreMarkDraft } from "./mark-form.js";
import { chosenResult, replyStatus, showTake } from "./reply-view.js";
import { timeFormat, timeLabel } from "./times.js";

const $ = (id) => document.getElementById(id);

/**
 * Keeps the reply's unsent state as its recording's draft (or removes the draft when nothing is
 * left); resolves true once kept. What is kept is read at once: the page may move on meanwhile.
 */
export async function keepDraft(review) {
  const reply = review.reply;
  if (!reply.owner) return false;
  const { coachId, submissionId } = reply.owner;
  const stored = Boolean((review.submission?.feedback ?? [])[0] ?? reply.sent);
  const take = stored ? null : reply.take;
  // Once the reply is stored, the composer's fields are not the coach's work any more.
  const draft = draftOf({
    take,
    notes: stored ? "" : $("reply-notes").value,
    result: stored ? null : chosenResult(),
    mark: markDraft(review),
    answer: stored ? $("answer-text").value : "",
  });
  if (!draft) {
    reply.kept = false;
    await deleteDraft(coachId, submissionId);
    return true;
  }
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
export async function restoreDraft(api, review, refresh, signal) {
  const reply = review.reply;
  if (!reply.owner) return;
  const { coachId, submissionId } = reply.owner;
  const draft = await loadDraft(coachId, submissionId);
  if (!draft || signal.aborted) return;
  const stored = (review.submission?.feedback ?? [])[0] ?? null;
  const mark = restoreMarkDraft(review, draft.mark);
  if (stored || reply.sent) {
    // An answer being typed and a mark being written outlive the reply; the composer's part does not.
    const answer = answerOf(draft);
    if (answer && !$("answer-text").value) {
      $("answer-text").value = answer;
      $("answer-status").textContent = "Your unsent answer is back.";
    }
    const left = draftAfterReply(draft, mark);
    if (left) {
      await saveDraft(coachId, submissionId, left);
    } else {
      await deleteDraft(coachId, submissionId);
    }
    const notes = notesForStored(draft, stored);
    if (notes) {
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
    reply.take = { ...takeOf(draft), url: URL.createObjectURL(draft.take.blob) };
    reply.kept = true;
    showTake(reply);
  }
  // What the coach has typed or chosen since opening wins over the draft.
  if (draft.notes && !$("reply-notes").value) $("reply-notes").value = draft.notes;
  if (draft.result && !chosenResult()) {
    const radio = document.querySelector(`#reply-result input[value="${CSS.escape(draft.result)}"]`);
    if (radio) radio.checked = true;
  }
  const saved = timeLabel(timeFormat(), draft.savedAt);
  const sentence = restoredSentence(draft, saved);
  if (sentence) replyStatus(sentence);
}
