// Placing a student (a placing coach, on a placement assessment): the level and the coach,
// chosen from the session's lists, sent with `PUT /v1/students/<id>/placement`.
import { element } from "./dom.js";

const $ = (id) => document.getElementById(id);

/**
 * Shows the placement panel when `session`'s coach places students and `review` is an
 * assessment, and wires its form (`on` adds a listener that ends with the review).
 */
export function openPlacement(api, review, { session, studentName, refresh, on }) {
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
