// The desk's spec runner: a few lines of our own, no library. This file is one expression (the
// runner), which desk_specs.py puts, with each spec file, into the one script WebDriver runs in
// a desk page; the specs load the desk's modules from /desk/assets/ with `load(name)`.
//
// A spec file is one function expression, `async ({ spec, load, equal, same, ok, newRunner })
// => { … }`: it loads what it tests and declares its specs with `spec(name, body)`. A spec
// passes when its body returns (or resolves) having made at least one assertion; it fails when
// an assertion fails, when it throws, or when it asserted nothing (a spec that cannot fail is
// not a spec).
(() => {
  class AssertionFailed extends Error {}

  // Assertions made by the spec running now (a runner run inside a spec keeps its own count).
  let assertions = 0;

  /** A value as the failure's message shows it. */
  function show(value) {
    if (value instanceof Map) return `Map ${show([...value])}`;
    if (value instanceof Set) return `Set ${show([...value])}`;
    if (ArrayBuffer.isView(value)) return `${value.constructor.name} ${show([...value])}`;
    if (value === undefined) return "undefined";
    if (typeof value === "number" && Object.is(value, -0)) return "-0";
    try {
      return JSON.stringify(value, (key, inner) => (inner === undefined ? "«undefined»" : inner instanceof Blob ? `«Blob ${inner.size}»` : inner));
    } catch {
      return String(value);
    }
  }

  function deepEqual(a, b) {
    if (Object.is(a, b)) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (a instanceof Map) return a.size === b.size && [...a].every(([key, value]) => b.has(key) && deepEqual(value, b.get(key)));
    if (a instanceof Set) return a.size === b.size && [...a].every((value) => b.has(value));
    if (a instanceof Blob) return false; // the same Blob is Object.is; two Blobs are not compared by content
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }

  const prefix = (what) => (what ? `${what}: ` : "");

  /** `actual` is `expected` (Object.is: NaN is NaN, 0 is not -0). */
  function equal(actual, expected, what = "") {
    assertions += 1;
    if (!Object.is(actual, expected)) throw new AssertionFailed(`${prefix(what)}expected ${show(expected)}, got ${show(actual)}`);
  }

  /** `actual` has the same shape and values as `expected`: arrays, plain objects, Maps, Sets, typed arrays, all the way down. */
  function same(actual, expected, what = "") {
    assertions += 1;
    if (!deepEqual(actual, expected)) throw new AssertionFailed(`${prefix(what)}expected ${show(expected)}, got ${show(actual)}`);
  }

  /** `value` is truthy. */
  function ok(value, what = "") {
    assertions += 1;
    if (!value) throw new AssertionFailed(`${prefix(what) || "expected a true value: "}got ${show(value)}`);
  }

  /** A runner: `spec(name, body)` declares, `run()` runs them in order and resolves `[{name, passed, message?}]`. */
  function newRunner() {
    const specs = [];
    return {
      spec(name, body) {
        specs.push({ name, body });
      },
      async run() {
        const results = [];
        const outer = assertions;
        for (const { name, body } of specs) {
          assertions = 0;
          try {
            await body();
            results.push(assertions > 0 ? { name, passed: true } : { name, passed: false, message: "made no assertion" });
          } catch (error) {
            const message = error instanceof AssertionFailed ? error.message : `threw ${error?.stack ?? error}`;
            results.push({ name, passed: false, message });
          }
        }
        assertions = outer;
        return results;
      },
    };
  }

  /**
   * Runs the spec files `[[fileName, define]]`, each spec named after its file ("keys: …"); a
   * file that cannot load what it tests is one failing spec, "<file>: loads".
   */
  async function runFiles(files, load) {
    const runner = newRunner();
    for (const [file, define] of files) {
      const group = file.replace(/\.spec\.js$/, "");
      try {
        await define({ spec: (name, body) => runner.spec(`${group}: ${name}`, body), load, equal, same, ok, newRunner });
      } catch (error) {
        runner.spec(`${group}: loads`, () => { throw error; });
      }
    }
    return runner.run();
  }

  return { runFiles, newRunner };
})()
