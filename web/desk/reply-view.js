// What the reply's composer shows and holds on the page: its status line, the take to listen
// to before sending, the end-of-course result chosen.
import { clock } from "./player.js";

const $ = (id) => document.getElementById(id);

export function replyStatus(text) {
  $("reply-status").textContent = text;
}

/** The take to listen to (or none), and what the record button does now. */
export function showTake(reply) {
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

/** The end-of-course result chosen, or null. */
export function chosenResult() {
  return document.querySelector("#reply-result input:checked")?.value ?? null;
}
