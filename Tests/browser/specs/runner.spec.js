// The runner itself, so that it cannot pass vacuously: a sub-runner is given specs that fail
// in each way a spec can (an assertion, a throw, a rejection, no assertion at all) beside one
// that passes, and each must be reported as it is.
async ({ spec, equal, same, ok, newRunner }) => {
  spec("a deliberately failing assertion is reported as failed, with its message; only the passing spec passes", async () => {
    const sub = newRunner();
    sub.spec("deliberately fails", () => equal(1 + 1, 3, "one and one"));
    sub.spec("passes", () => same({ a: [1, new Map([["k", new Set([2])]])] }, { a: [1, new Map([["k", new Set([2])]])] }));
    sub.spec("throws", () => { throw new Error("boom"); });
    sub.spec("rejects later", async () => { await null; same({ a: [1] }, { a: [2] }); });
    sub.spec("ok on a false value", () => ok(0, "zero"));
    sub.spec("asserts nothing", () => {});
    const results = await sub.run();
    same(results.map((result) => [result.name, result.passed]), [
      ["deliberately fails", false], ["passes", true], ["throws", false], ["rejects later", false],
      ["ok on a false value", false], ["asserts nothing", false],
    ]);
    ok(results[0].message.includes("one and one") && results[0].message.includes("3") && results[0].message.includes("2"), results[0].message);
    ok(results[2].message.includes("boom"), results[2].message);
    equal(results[5].message, "made no assertion");
  });

  spec("equal is Object.is and same compares shapes, not identities", async () => {
    const sub = newRunner();
    sub.spec("NaN", () => equal(NaN, NaN));
    sub.spec("zero and minus zero", () => equal(0, -0));
    sub.spec("two arrays alike", () => same([1, { b: "x" }], [1, { b: "x" }]));
    sub.spec("a key more", () => same({ a: 1 }, { a: 1, b: undefined }));
    sub.spec("an array is not an object", () => same([], {}));
    sub.spec("typed arrays", () => same(new Float32Array([0.5]), new Float32Array([0.5])));
    const passed = (await sub.run()).map((result) => result.passed);
    same(passed, [true, false, true, false, false, true]);
  });
}
