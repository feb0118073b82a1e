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

/** Keys named by their place on the keyboard, for `shortcutKey`. */
const CODE_KEYS = { BracketLeft: "[", BracketRight: "]", Equal: "=", Minus: "-", Space: " ", Comma: ",", Period: "." };

/**
 * The key a shortcut means: `event.key` when it is a named key (ArrowLeft) or a Latin
 * character, else the key at the same place on a US keyboard (`event.code`): with an Arabic
 * layout, M types "ة" and still marks. Letters come lower case.
 */
export function shortcutKey(event) {
  const key = event.key ?? "";
  if ([...key].length !== 1 || /^[\x20-\x7e]$/.test(key)) return key.length === 1 ? key.toLowerCase() : key;
  const letter = /^Key([A-Z])$/.exec(event.code ?? "");
  if (letter) return letter[1].toLowerCase();
  const digit = /^Digit([0-9])$/.exec(event.code ?? "");
  if (digit) return digit[1];
  return CODE_KEYS[event.code] ?? key;
}

/** Whether a key typed at `target` belongs to a text field or a list box, not to the page's shortcuts. */
export function typingIn(target) {
  return Boolean(target?.closest?.("input, textarea, select, [contenteditable=true]"));
}
