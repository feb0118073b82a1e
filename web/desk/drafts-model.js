// A reply's draft as a value, apart from where it is kept (drafts.js, IndexedDB): its key in
// the store, what it holds, what of it outlives the stored reply, and what the page says when
// it comes back. A draft is `{ take: { blob, type, seconds, keys } | null, notes, result,
// mark, answer, savedAt }` (`keys`: the Idempotency-Key per result, as an object).
import { clock } from "./player.js";

/** The key of one draft: the coach, then the recording (a coach never sees another's drafts). */
export const draftKey = (coachId, submissionId) => `${coachId}\u0000${submissionId}`;

/** What every key of `coachId`'s drafts starts with. */
export const draftPrefix = (coachId) => `${coachId}\u0000`;

/**
 * The draft of a reply's unsent state, or null when nothing is left worth keeping. `take`:
 * the take (`keys` a Map), or null; `notes`, `answer`: text as typed; `result`: chosen or
 * null; `mark`: the mark being written, or null.
 */
export function draftOf({ take, notes, result, mark, answer }) {
  if (!take && !notes.trim() && !result && !mark && !answer.trim()) return null;
  return {
    take: take ? { blob: take.blob, type: take.type, seconds: take.seconds, keys: Object.fromEntries(take.keys ?? []) } : null,
    notes, result, mark, answer,
  };
}

/** A draft's take as the reply holds it: its keys as a Map again. */
export function takeOf(draft) {
  const take = draft.take;
  return { blob: take.blob, type: take.type, seconds: take.seconds, keys: new Map(Object.entries(take.keys ?? {})) };
}

/** A draft's answer to the student when it has any words, else "". */
export function answerOf(draft) {
  return draft.answer?.trim() ? draft.answer : "";
}

/**
 * What is kept of `draft` once its recording's reply is stored: an answer being typed and a
 * mark being written (when the form took it back, `markRestored`) outlive the reply; the
 * composer's part does not. Null when nothing is left.
 */
export function draftAfterReply(draft, markRestored) {
  const answer = answerOf(draft);
  return answer || markRestored ? { take: null, notes: "", result: null, mark: draft.mark ?? null, answer } : null;
}

/**
 * The notes a draft gives the stored reply `stored`, or null: only when the reply has none and
 * this draft's take was sent (it holds a send's key) — the answer was lost after the reply was
 * stored. A reply sent from elsewhere keeps its own.
 */
export function notesForStored(draft, stored) {
  const notes = draft.notes?.trim();
  const sent = Object.keys(draft.take?.keys ?? {}).length > 0;
  return stored && notes && !stored.notes && sent ? notes : null;
}

/** What the reply's status says when `draft` (kept at `saved`, in words) comes back; null when it held nothing of the reply. */
export function restoredSentence(draft, saved) {
  if (!(draft.take || draft.notes?.trim() || draft.result)) return null;
  return draft.take ? `Your unsent reply (${clock(draft.take.seconds)}, kept ${saved}) is back: listen, then send.`
    : `Your unsent notes (kept ${saved}) are back.`;
}
