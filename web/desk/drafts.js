// Drafts: a reply recorded and not yet sent, kept in this browser per coach and recording
// (IndexedDB; the take as a Blob, with its notes, its result and its Idempotency-Keys), so
// that leaving the review, a reload, a crash or an ended session loses none of a coach's work.
// A draft is restored when its recording is opened again, listed in the queue, and removed
// once the reply is stored (or when the coach discards it, or signs out of this browser).
//
// Where IndexedDB cannot be opened (a private window of some browsers), every call resolves
// quietly: `available()` says so, and the page warns that unsent replies are not kept.
// What a draft holds and how it is keyed is drafts-model.js's.
import { draftKey as key, draftPrefix } from "./drafts-model.js";

const DATABASE = "tilawa-desk";
const STORE = "drafts";
let opening = null;

function request(operation) {
  return new Promise((resolve, reject) => {
    operation.onsuccess = () => resolve(operation.result);
    operation.onerror = () => reject(operation.error);
  });
}

function database() {
  if (!opening) {
    opening = new Promise((resolve) => {
      let open;
      try {
        open = indexedDB.open(DATABASE, 1);
      } catch {
        return resolve(null);
      }
      open.onupgradeneeded = () => open.result.createObjectStore(STORE);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => resolve(null);
      open.onblocked = () => resolve(null);
    });
  }
  return opening;
}

async function store(mode) {
  const db = await database();
  return db ? db.transaction(STORE, mode).objectStore(STORE) : null;
}

/** Whether drafts can be kept in this browser. */
export async function available() {
  return (await database()) !== null;
}

/**
 * The draft of `submissionId`, or null: `{ take: { blob, type, seconds, keys } | null, notes,
 * result, savedAt }` (`keys`: the Idempotency-Key per result, as an object).
 */
export async function loadDraft(coachId, submissionId) {
  try {
    const drafts = await store("readonly");
    return drafts ? (await request(drafts.get(key(coachId, submissionId)))) ?? null : null;
  } catch {
    return null;
  }
}

/** Keeps `draft` for `submissionId`; true once it is stored. */
export async function saveDraft(coachId, submissionId, draft) {
  try {
    const drafts = await store("readwrite");
    if (!drafts) return false;
    await request(drafts.put({ ...draft, savedAt: new Date().toISOString() }, key(coachId, submissionId)));
    return true;
  } catch {
    return false; // full, or refused: the page says the draft is not kept
  }
}

export async function deleteDraft(coachId, submissionId) {
  try {
    const drafts = await store("readwrite");
    if (drafts) await request(drafts.delete(key(coachId, submissionId)));
  } catch {
    // nothing kept, nothing to remove
  }
}

/** The recordings `coachId` has drafts for. */
export async function draftIds(coachId) {
  try {
    const drafts = await store("readonly");
    if (!drafts) return new Set();
    const prefix = draftPrefix(coachId);
    const keys = await request(drafts.getAllKeys(IDBKeyRange.bound(prefix, prefix + "\uffff")));
    return new Set(keys.map((entry) => entry.slice(prefix.length)));
  } catch {
    return new Set();
  }
}

/** Removes every draft of `coachId` (signing out of this browser). */
export async function deleteDrafts(coachId) {
  for (const id of await draftIds(coachId)) await deleteDraft(coachId, id);
}
