// The desk's entry point: who is signed in, the route (the queue, or `#/review/<id>`), and
// sign-out. State lives here, in one object; the other modules are functions of it.
import { Api, ApiError } from "./api.js";
import { renderQueue, renderQuestions } from "./queue.js";
import { closeReview, newReview, openReview } from "./review.js";

const api = new Api();
const state = { session: null, queue: null, timer: null, review: null, lastReviewed: null };
const $ = (id) => document.getElementById(id);

async function refreshQueue() {
  try {
    const queue = await api.get(`/v1/coaches/${encodeURIComponent(state.session.coach_id)}/queue`);
    state.queue = queue;
    const items = queue.items ?? [];
    const questions = queue.questions ?? [];
    renderQueue($("queue-list"), items);
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
  closeReview(state.review);
  state.review = null;
  state.session = null;
  $("queue").hidden = true;
  $("review").hidden = true;
  $("signout").hidden = true;
  $("who").textContent = "";
  $("signedout").hidden = false;
}

/** `#/review/<id>` opens a recording's review; anything else is the queue. */
function parseRoute(hash) {
  const match = /^#\/review\/([^/]+)$/.exec(hash);
  return match ? { view: "review", id: decodeURIComponent(match[1]) } : { view: "queue" };
}

async function route() {
  if (!state.session) return;
  const target = parseRoute(location.hash);
  if (target.view === "review") {
    if (state.review?.id === target.id) return;
    clearInterval(state.timer);
    closeReview(state.review);
    state.review = newReview(target.id);
    state.lastReviewed = target.id;
    $("queue").hidden = true;
    $("review").hidden = false;
    document.title = "Review — Tilawa desk";
    const item = (state.queue?.items ?? []).find((entry) => entry.submission.id === target.id);
    const question = (state.queue?.questions ?? []).find((entry) => entry.comment?.submission_id === target.id);
    const studentName = item?.submission.student_name ?? question?.student_name;
    const opening = openReview(api, state.review, { studentName, session: state.session, queueItem: item });
    // The heading (named at once from the queue) takes the focus: the review's keys work from there.
    $("review-title").focus();
    await opening;
    return;
  }
  closeReview(state.review);
  state.review = null;
  $("review").hidden = true;
  $("queue").hidden = false;
  document.title = "Tilawa — coach's desk";
  await refreshQueue();
  // Back from a review: the focus returns to the row it was opened from.
  if (state.lastReviewed) {
    document.querySelector(`#queue-list li[data-submission="${CSS.escape(state.lastReviewed)}"] a.open`)?.focus();
  }
  clearInterval(state.timer);
  // New recordings appear within seconds, without a reload.
  state.timer = setInterval(refreshQueue, 5000);
}

async function start() {
  try {
    state.session = await api.session();
  } catch (error) {
    $("who").textContent = error.message;
    return;
  }
  if (!state.session) return showSignedOut();
  $("who").textContent = `Signed in as ${state.session.coach_name ?? state.session.coach_id}`;
  $("signout").hidden = false;
  // Under a review's address the queue comes first: the review names the student from it.
  if (parseRoute(location.hash).view === "review") await refreshQueue();
  await route();
}

$("signout").addEventListener("click", async () => {
  await api.signOut();
  showSignedOut();
});
window.addEventListener("hashchange", route);

start();
