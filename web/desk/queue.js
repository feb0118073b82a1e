// The coach's queue: overdue first, then by when the reply is due (the route itself is
// oldest-first); times as times.js says them ("due Mon 18:00", "arrived Sun 15 Mar 09:30").
// Rendered with DOM nodes, never HTML strings.
// Each row's student name is a link to the recording's review (`#/review/<id>`); the link
// covers the whole row (CSS), so a click anywhere on it or Enter on the link opens it.

import { element, typed } from "./dom.js";
import { clock } from "./player.js";
import { deadlineLabel, timeFormat, timeLabel, timeLeft } from "./times.js";

export const KIND_LABEL = { week: "Week", eoc: "End-of-course", assessment: "Placement assessment" };

export function sortQueue(items) {
  return [...items].sort((a, b) => {
    if (a.overdue !== b.overdue) return a.overdue ? -1 : 1;
    return Date.parse(a.due_at) - Date.parse(b.due_at);
  });
}

/** The review's address for a submission. */
export function reviewHash(id) {
  return `#/review/${encodeURIComponent(id)}`;
}

/** `#/review/<id>` opens a recording's review; anything else is the queue. */
export function parseRoute(hash) {
  const match = /^#\/review\/([^/]+)$/.exec(hash);
  return match ? { view: "review", id: decodeURIComponent(match[1]) } : { view: "queue" };
}

/**
 * The recordings before and after `id` among the queue's `items`, in the queue's order (what
 * the queue shows); a review opened from outside the queue (a question) has the queue's first
 * as its next.
 */
export function queueNeighbours(items, id) {
  const ids = sortQueue(items).map((item) => item.submission.id);
  const index = ids.indexOf(id);
  if (index < 0) return { previous: null, next: ids[0] ?? null, position: null, count: ids.length };
  return { previous: ids[index - 1] ?? null, next: ids[index + 1] ?? null, position: index + 1, count: ids.length };
}

/** The queue's rows; `drafts` holds the recordings with an unsent reply kept in this browser. */
export function renderQueue(list, items, { now = Date.now(), drafts = new Set() } = {}) {
  // A refresh must not take the focus from the row the coach is on.
  const focused = list.contains(document.activeElement) ? document.activeElement.closest("li")?.dataset.submission : null;
  const format = timeFormat();
  list.replaceChildren(...sortQueue(items).map((item) => {
    const submission = item.submission;
    const row = element("li", item.overdue ? "overdue" : "");
    row.dataset.submission = submission.id;
    const student = typed(submission.student_name ?? submission.student_id, "student open", "a");
    student.href = reviewHash(submission.id);
    student.setAttribute("elementtiming", "queue-row"); // when the first row is painted (`make bench-desk`)
    const kind = KIND_LABEL[submission.kind] ?? submission.kind;
    const title = submission.title ? " — " + submission.title : "";
    const week = element("span", "week", submission.week ? `${kind} ${submission.week}${title}` : kind);
    if (submission.late) week.append(element("span", "tag late", "late"));
    if (drafts.has(submission.id)) week.append(element("span", "tag draft", "draft reply"));
    const due = element("span", "due" + (item.overdue ? " overdue" : ""));
    due.append(element("span", "", timeLeft(item.due_at, now, item.overdue)));
    due.append(document.createElement("br"));
    const when = element("time", "", `due ${deadlineLabel(format, item.due_at, now)}`);
    when.dateTime = item.due_at;
    due.append(when);
    row.append(student, due, week);
    if (submission.passage) row.append(element("span", "week", submission.passage));
    // When it came in, and how long it is.
    const arrived = element("span", "week arrived");
    const at = element("time", "", `arrived ${timeLabel(format, submission.received_at, { date: true })}`);
    at.dateTime = submission.received_at;
    arrived.append(at);
    if (Number.isFinite(submission.duration_seconds)) arrived.append(` · ${clock(submission.duration_seconds)} long`);
    row.append(arrived);
    return row;
  }));
  if (focused) list.querySelector(`li[data-submission="${CSS.escape(focused)}"] a.open`)?.focus();
}

/** The students' open questions: who asked about which reply, and what; each opens that recording. */
export function renderQuestions(list, questions, now = Date.now()) {
  list.replaceChildren(...questions.map((question) => {
    const comment = question.comment ?? {};
    const row = element("li", question.overdue ? "overdue" : "");
    row.dataset.submission = comment.submission_id;
    const student = typed(question.student_name ?? comment.author_id ?? "", "student open", "a");
    student.href = reviewHash(comment.submission_id);
    const kind = KIND_LABEL[question.kind] ?? question.kind ?? "";
    const about = element("span", "week", question.week ? `about the reply to ${kind} ${question.week}` : `about the reply to the ${kind.toLowerCase()}`);
    const asked = element("span", "due" + (question.overdue ? " overdue" : ""), question.overdue ? "overdue" : "open");
    row.append(student, asked, about);
    row.append(comment.text ? typed(`“${comment.text}”`, "question-text") : element("span", "question-text", "a voice message"));
    return row;
  }));
}
