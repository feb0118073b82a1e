// keys.js: the key a shortcut means in any keyboard layout, and what each key does in a review.
async ({ spec, load, equal, same }) => {
  const { reviewCommand, shortcutKey, typingIn } = await load("keys.js");

  spec("shortcutKey: a letter typed in another script is the letter at its place on a US keyboard", () => {
    equal(shortcutKey({ key: "ة", code: "KeyM" }), "m", "Arabic layout, M");
    equal(shortcutKey({ key: "ت", code: "KeyJ" }), "j", "Arabic layout, J");
    equal(shortcutKey({ key: "٣", code: "Digit3" }), "3", "Arabic-Indic digit");
  });

  spec("shortcutKey: a Latin character is taken by its key, lower case, wherever the key is", () => {
    equal(shortcutKey({ key: "j" }), "j", "no code at all");
    equal(shortcutKey({ key: "J", code: "KeyJ" }), "j", "with Shift");
    equal(shortcutKey({ key: "a", code: "KeyQ" }), "a", "AZERTY's A is on Q");
    equal(shortcutKey({ key: "m", code: "Semicolon" }), "m", "AZERTY's M");
    equal(shortcutKey({ key: "+", code: "Equal" }), "+");
    equal(shortcutKey({ key: " ", code: "Space" }), " ");
  });

  spec("shortcutKey: [ ] , . by their place when the layout types something else there", () => {
    equal(shortcutKey({ key: "ج", code: "BracketLeft" }), "[");
    equal(shortcutKey({ key: "د", code: "BracketRight" }), "]");
    equal(shortcutKey({ key: "و", code: "Comma" }), ",");
    equal(shortcutKey({ key: "ز", code: "Period" }), ".");
    equal(shortcutKey({ key: "ـ", code: "Minus" }), "-");
  });

  spec("shortcutKey: named keys stay named; an unknown place keeps its own key", () => {
    equal(shortcutKey({ key: "ArrowLeft", code: "ArrowLeft" }), "ArrowLeft");
    equal(shortcutKey({ key: "Escape", code: "Escape" }), "Escape");
    equal(shortcutKey({ key: "Dead", code: "BracketLeft" }), "Dead");
    equal(shortcutKey({ key: "ش", code: "IntlBackslash" }), "ش");
    equal(shortcutKey({}), "");
  });

  spec("typingIn: text fields, list boxes and editable text keep their keys; buttons and the page do not", () => {
    equal(typingIn(document.createElement("input")), true, "input");
    equal(typingIn(document.createElement("textarea")), true, "textarea");
    equal(typingIn(document.createElement("select")), true, "select");
    const editable = document.createElement("div");
    editable.setAttribute("contenteditable", "true");
    const inside = document.createElement("span");
    editable.append(inside);
    equal(typingIn(inside), true, "inside editable text");
    equal(typingIn(document.createElement("button")), false, "button");
    equal(typingIn(null), false, "no target");
    equal(typingIn(window), false, "the window (no closest)");
  });

  spec("reviewCommand: each review key's command", () => {
    const commands = ["[", "]", "l", "a", "b", "m", ",", ".", "+", "=", "-"].map((key) => reviewCommand(key));
    same(commands, ["slower", "faster", "loop", "set-a", "set-b", "mark", "mark-earlier", "mark-later", "zoom-in", "zoom-in", "zoom-out"]);
    equal(reviewCommand(shortcutKey({ key: "ة", code: "KeyM" })), "mark", "M on an Arabic layout marks");
  });

  spec("reviewCommand: Space plays except on a link or a disclosure", () => {
    equal(reviewCommand(" "), "play");
    equal(reviewCommand(" ", { onLink: true }), null);
  });

  spec("reviewCommand: ←/→ skip; with Shift they step by ayah only once the recording is aligned", () => {
    equal(reviewCommand("ArrowLeft"), "back");
    equal(reviewCommand("ArrowRight"), "forward");
    equal(reviewCommand("ArrowRight", { timed: true }), "forward");
    equal(reviewCommand("ArrowRight", { shift: true }), null, "Shift+→ unaligned");
    equal(reviewCommand("ArrowLeft", { shift: true, timed: true }), "previous-ayah");
    equal(reviewCommand("ArrowRight", { shift: true, timed: true }), "next-ayah");
  });

  spec("reviewCommand: keys that are not the review's (J K are the desk's) do nothing", () => {
    same(["j", "k", "x", "Enter", "Escape", "toString", "constructor", ""].map((key) => reviewCommand(key)), [null, null, null, null, null, null, null, null]);
  });
}
