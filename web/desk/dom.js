// Building the page from data: DOM nodes with text, never HTML strings (what a student or
// coach typed can never become markup).

/** A new `tag` element with `className` (when given) and `text` as its text (when given). */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * A span (or `tag`) for text a person typed — a name, a note, a question, an answer: its
 * direction comes from its own first strong letter (`dir="auto"`), so Arabic with Latin
 * punctuation reads right to left inside an English page, and English stays left to right.
 */
export function typed(text, className = "", tag = "span") {
  const node = element(tag, className, text);
  node.dir = "auto";
  return node;
}

/**
 * A new `tag` element with `attributes` (`className` sets its class, any other name an
 * attribute) and `text` as its text (when given).
 */
export function elementWith(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "className") node.className = value;
    else node.setAttribute(name, value);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}
