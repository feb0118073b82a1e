// The desk's entry point: who is signed in, the route (the queue, or `#/review/<id>`), and
// sign-out. State lives here, in one object; the other modules are functions of it.
import { Api, ApiError } from "./api.js";
import { deleteDrafts, draftIds } from "./drafts.js";
import { typed } from "./dom.js";
import { shortcutKey, typingIn } from "./keys.js";
import { parseRoute, queueNeighbours, renderQueue, renderQuestions, reviewHash } from "./queue.js";
import { closeReview, newReview, openReview } from "./review.js";

const api = new Api();
const state = { session: null, queue: null, timer: null, review: null, lastReviewed: null, focusPlayer: false };
const $ = (id) => document.getElementById(id);

async function refreshQueue() {
  try {
    const queue = await api.get(`/v1/coaches/${encodeURIComponent(state.session.coach_id)}/queue`);
    state.queue = queue;
    const items = queue.items ?? [];
    const questions = queue.questions ?? [];
    renderQueue($("queue-list"), items, { drafts: await draftIds(state.session.coach_id) });
    renderQuestions($("question-list"), questions);
    $("queue-empty").hidden = items.length > 0;
    $("questions-empty").hidden = questions.length > 0;
    const overdue = items.filter((item) => item.overdue).length;
    $("counts").textContent = `${items.length} waiting${overdue ? `, ${overdue} overdue` : ""}; ${questions.length} open question${questions.length === 1 ? "" : "s"}`;
    $("queue-error").hidden = true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return showSignedOut();
    $("queue-error").textContent = error.message;
    $("queue-error").hidden = false;
  }
}

function showSignedOut() {
  clearInterval(state.timer);
  $("loading").hidden = true;
  closeReview(state.review);
  state.review = null;
  state.session = null;
  $("queue").hidden = true;
  $("review").hidden = true;
  $("signout").hidden = true;
  $("who").textContent = "";
  $("signedout").hidden = false;
  showSignInOptions();
}

/** "Sign in with <provider>" on the signed-out page, when the organisation's identity provider signs coaches in. */
async function showSignInOptions() {
  let options = null;
  try {
    options = await api.get("/desk/sign-in");
  } catch {
    return; // the login link still signs in
  }
  if (options?.provider && options.start) {
    const link = $("signin-provider-link");
    link.textContent = `Sign in with ${options.provider}`;
    link.href = options.start;
    $("signin-provider").hidden = false;
  }
  if (options?.link_request) $("link-request").hidden = false;
}

/**
 * "Ask for a new link": the organisation is asked to send the coach a new one (the server
 * answers alike whoever is named, and never with the link itself).
 */
$("link-request").addEventListener("submit", async (event) => {
  event.preventDefault();
  const who = $("link-request-who").value.trim();
  const status = $("link-request-status");
  if (!who) return void (status.textContent = "Write your coach ID or the email the programme has for you.");
  const button = $("link-request").querySelector("button");
  button.disabled = true;
  try {
    status.textContent = (await api.send("POST", "/desk/link-request", { json: { who } }))?.detail ?? "Asked.";
  } catch (error) {
    status.textContent = error.message;
  } finally {
    button.disabled = false;
  }
});

/** Whether leaving `review` would lose a reply recorded and not sent (or still recording). */
function unsent(review) {
  const reply = review?.reply;
  return Boolean(reply && !reply.sent && (reply.take || reply.recorder?.recording || reply.sending));
}

/**
 * What leaving `review` would cost, as the question to ask first, or "" when nothing: an
 * unsent reply (kept as a draft or not), or a spoken correction recorded and not yet on a
 * mark (the browser cannot keep it).
 */
function leaving(review) {
  if (unsent(review)) {
    return review.reply.kept
      ? "Your recorded reply has not been sent. It stays here as this recording's draft. Leave it for now?"
      : "Your recorded reply has not been sent, and this browser cannot keep it. Leave this recording and lose it?";
  }
  const clip = review?.marks?.clip;
  return clip && (clip.take || clip.recording)
    ? "Your recorded correction is not on a mark yet, and this browser cannot keep it. Leave this recording and lose it?"
    : "";
}

/** The recordings before and after `id` in the queue's order (queue.js's queueNeighbours). */
function neighbours(id) {
  return queueNeighbours(state.queue?.items ?? [], id);
}

function showNeighbours(id) {
  const { previous, next, position, count } = neighbours(id);
  $("prev-recording").disabled = !previous;
  $("next-recording").disabled = !next;
  $("queue-position").textContent = position ? `${position} of ${count} waiting` : "";
}

/** Opens the next (`1`) or previous (`-1`) recording of the queue; the player takes the focus. */
function step(direction) {
  if (!state.review) return;
  const { previous, next } = neighbours(state.review.id);
  const target = direction > 0 ? next : previous;
  if (!target) {
    $("player-status").textContent = direction > 0 ? "This is the last recording waiting." : "This is the first recording waiting.";
    return;
  }
  state.focusPlayer = true;
  location.hash = reviewHash(target);
}

async function route() {
  if (!state.session) return;
  const target = parseRoute(location.hash);
  if (state.review && state.review.id !== target.id && leaving(state.review) && !confirm(leaving(state.review))) {
    state.focusPlayer = false;
    // Back where the take is: the address again, which this route then leaves as it is.
    location.hash = reviewHash(state.review.id);
    return;
  }
  if (target.view === "review") {
    if (state.review?.id === target.id) return;
    clearInterval(state.timer);
    closeReview(state.review);
    state.review = newReview(target.id);
    state.lastReviewed = target.id;
    $("loading").hidden = true;
    $("queue").hidden = true;
    $("review").hidden = false;
    document.title = "Review — Tilawa desk";
    const item = (state.queue?.items ?? []).find((entry) => entry.submission.id === target.id);
    const question = (state.queue?.questions ?? []).find((entry) => entry.comment?.submission_id === target.id);
    const studentName = item?.submission.student_name ?? question?.student_name;
    const opening = openReview(api, state.review, { studentName, session: state.session, queueItem: item });
    showNeighbours(target.id);
    // The heading (named at once from the queue) takes the focus: the review's keys work from
    // there. Stepping from one review to the next, the player does, once it is shown.
    $("review-title").focus();
    const focusPlayer = state.focusPlayer;
    state.focusPlayer = false;
    await opening;
    if (focusPlayer && state.review?.id === target.id && !$("review-body").hidden) $("play").focus();
    return;
  }
  closeReview(state.review);
  state.review = null;
  $("review").hidden = true;
  document.title = "Tilawa — coach's desk";
  if (state.queue) {
    // Its last rows at once; those read again replace them.
    $("queue").hidden = false;
    await refreshQueue();
  } else {
    // Nothing read yet: the page says it is loading until the queue (or its error) is there.
    showLoading("Loading the queue…");
    await refreshQueue();
    $("loading").hidden = true;
    // Signed out meanwhile (refreshQueue showed that page), or a review opened: the queue stays hidden.
    if (!state.session || state.review) return;
    $("queue").hidden = false;
  }
  if (!state.session || state.review) return;
  // Back from a review: the focus returns to the row it was opened from.
  if (state.lastReviewed) {
    document.querySelector(`#queue-list li[data-submission="${CSS.escape(state.lastReviewed)}"] a.open`)?.focus();
  }
  clearInterval(state.timer);
  // New recordings appear within seconds, without a reload.
  state.timer = setInterval(refreshQueue, 5000);
}

/** The page's sentence while what it shows first is read (index.html shows it from the start). */
function showLoading(text) {
  $("loading").textContent = text;
  $("loading").hidden = false;
}

async function start() {
  const opening = parseRoute(location.hash).view;
  showLoading(opening === "review" ? "Loading the recording…" : "Loading the queue…");
  try {
    state.session = await api.session();
  } catch (error) {
    // The sentence (the server cannot be reached…) in place of the loading one.
    showLoading(error.message);
    $("loading").className = "error";
    return;
  }
  if (!state.session) return showSignedOut();
  $("who").replaceChildren("Signed in as ", typed(state.session.coach_name ?? state.session.coach_id, "", "bdi"));
  $("signout").hidden = false;
  // Under a review's address the queue comes first: the review names the student from it (and
  // says it is loading the recording meanwhile, review.js).
  if (opening === "review") {
    await refreshQueue();
    $("loading").hidden = true;
  }
  await route();
}

// Signing out of this browser takes the coach's unsent drafts with it (a shared computer keeps
// no one's recorded replies); with drafts kept, the page asks first.
$("signout").addEventListener("click", async () => {
  const coach = state.session?.coach_id;
  const drafts = coach ? (await draftIds(coach)).size : 0;
  if (drafts && !confirm(`You have ${drafts === 1 ? "an unsent reply" : `${drafts} unsent replies`} kept in this browser as ${drafts === 1 ? "a draft" : "drafts"}. Signing out deletes ${drafts === 1 ? "it" : "them"}. Sign out?`)) return;
  try {
    await api.signOut();
  } catch (error) {
    $("who").textContent = `${error.message} You are still signed in.`;
    return;
  }
  if (state.review) state.review.reply.owner = null; // closing the review keeps no draft now
  showSignedOut();
  if (coach) await deleteDrafts(coach);
});
window.addEventListener("hashchange", route);
$("next-recording").addEventListener("click", () => step(1));
$("prev-recording").addEventListener("click", () => step(-1));
// "Send and next" (reply.js): the reply is stored, on to the next recording; the one answered
// leaves the queue as read (Previous never goes back to it, the count is one less) until the
// queue is read again.
document.addEventListener("desk:next", () => {
  const answered = state.review?.id;
  step(1);
  if (state.queue && answered) state.queue.items = state.queue.items.filter((item) => item.submission.id !== answered);
});
// `J` next, `K` previous, in any keyboard layout, while a review is open and no text field has the keys.
document.addEventListener("keydown", (event) => {
  if (!state.review || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typingIn(event.target)) return;
  const pressed = shortcutKey(event);
  if (pressed !== "j" && pressed !== "k") return;
  event.preventDefault();
  step(pressed === "j" ? 1 : -1);
});

start();
