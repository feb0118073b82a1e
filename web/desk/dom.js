// Building the page from data: DOM nodes with text, never HTML strings (what a student or
// coach typed can never become markup).

/** A new `tag` element with `className` (when given) and `text` as its text (when given). */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
