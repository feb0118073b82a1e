// The keyboard, as pure functions of a key event's fields: which key a shortcut means in any
// layout, whether the key belongs to a text field, and what each key does in a review. The
// review (controls.js) and the desk (desk.js) act on what these say.

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

/** The review's letter and sign keys (from `shortcutKey`) and what each does. */
const REVIEW_KEYS = {
  "[": "slower", "]": "faster", l: "loop", a: "set-a", b: "set-b", m: "mark",
  ",": "mark-earlier", ".": "mark-later", "+": "zoom-in", "=": "zoom-in", "-": "zoom-out",
};

/**
 * What `pressed` (a `shortcutKey`) does in a review, or null when it is not the review's:
 * Space plays or pauses (not on a link or a disclosure, `onLink`, which keep their own);
 * ←/→ go back or forward 5 s, and with Shift to the previous or next ayah once the recording
 * is aligned (`timed`; until then Shift+←/→ is not the review's).
 */
export function reviewCommand(pressed, { shift = false, onLink = false, timed = false } = {}) {
  if (pressed === " ") return onLink ? null : "play";
  if (pressed === "ArrowLeft" || pressed === "ArrowRight") {
    const forward = pressed === "ArrowRight";
    if (!shift) return forward ? "forward" : "back";
    if (!timed) return null;
    return forward ? "next-ayah" : "previous-ayah";
  }
  return Object.hasOwn(REVIEW_KEYS, pressed) ? REVIEW_KEYS[pressed] : null;
}
