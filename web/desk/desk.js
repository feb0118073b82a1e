// The desk's entry point: who is signed in, the queue, sign-out. State lives here, in one
// object; the other modules are functions of it.
import { Api, ApiError } from "./api.js";
import { renderQueue, renderQuestions } from "./queue.js";

const api = new Api();
const state = { session: null, queue: null, timer: null };
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
  state.session = null;
  $("queue").hidden = true;
  $("signout").hidden = true;
  $("who").textContent = "";
  $("signedout").hidden = false;
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
  $("queue").hidden = false;
  await refreshQueue();
  // New recordings appear within seconds, without a reload.
  state.timer = setInterval(refreshQueue, 5000);
}

$("signout").addEventListener("click", async () => {
  await api.signOut();
  showSignedOut();
});

start();
