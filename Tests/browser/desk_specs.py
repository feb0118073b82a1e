#!/usr/bin/env python3
"""The desk's pure logic, specified in a real browser: key mapping, the alignment display, the
queue's order, marks, the reply's draft, the waveform's arithmetic, the recorder's types.

Usage: desk_specs.py BASE_URL [SCREENSHOT_DIR]

Opens the desk's page on the running daemon (signed out: nothing else is needed), so the specs
load the desk's own modules from /desk/assets/ under the desk's own Content-Security-Policy.
The runner (specs/runner.js) and every specs/*.spec.js go into the one script WebDriver runs
in that page (a WebDriver script is the browser's to run, not the page's, so `script-src
'self'` does not stop it; the modules it imports are the page's own origin's). Each spec's
result is printed; any failing spec fails this script (exit 1) by its name, and so do a spec
file that declares no spec, a runner that cannot start, and a runner that does not report its
own deliberately failing spec as failed (runner.spec.js). SCREENSHOT_DIR, when given, gets the
results as a page at 1280x800 and 390x844.
"""
import glob
import json
import os
import sys

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from desk_common import browser, check, failures, report, screenshots, wait

SPECS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs")
SELF_CHECK = "runner: a deliberately failing assertion is reported as failed, with its message; only the passing spec passes"


def expression(path):
    """A spec file (or the runner) as an expression for the script: its text in parentheses."""
    with open(path, encoding="utf-8") as file:
        text = file.read().strip()
    return "(\n" + (text[:-1] if text.endswith(";") else text) + "\n)"


def script(files):
    """The script WebDriver runs: the runner, the spec files, and `load(name)`, which imports a desk module."""
    specs = ",\n".join(f"[{json.dumps(os.path.basename(path))}, {expression(path)}]" for path in files)
    return (
        "const done = arguments[arguments.length - 1];\n"
        f"const runner = {expression(os.path.join(SPECS, 'runner.js'))};\n"
        f"const files = [\n{specs}\n];\n"
        "runner.runFiles(files, (name) => import('/desk/assets/' + name))\n"
        "  .then((results) => done({ results }), (error) => done({ error: String(error && error.stack || error) }));\n"
    )


# The page's Content-Security-Policy, as the daemon sends it.
POLICY = """const done = arguments[arguments.length - 1];
    fetch(location.href, {credentials: 'same-origin', cache: 'no-store'})
      .then((r) => done(r.headers.get('Content-Security-Policy'))).catch((e) => done('unreadable: ' + e));"""

# The results as the page's only content, for the screenshots (DOM nodes, no markup: the CSP holds).
SHOW = """const [results] = arguments;
    const list = document.createElement('ol');
    for (const r of results) {
      const item = document.createElement('li');
      item.textContent = (r.passed ? 'ok  ' : 'FAIL ') + r.name + (r.message ? ' — ' + r.message : '');
      list.append(item);
    }
    const heading = document.createElement('h1');
    heading.textContent = 'Desk specs: ' + results.filter((r) => r.passed).length + ' of ' + results.length + ' pass';
    document.body.replaceChildren(heading, list);"""


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    base = argv[1].rstrip("/")
    shots = argv[2] if len(argv) > 2 else None
    if shots:
        os.makedirs(shots, exist_ok=True)
    files = sorted(glob.glob(os.path.join(SPECS, "*.spec.js")))
    groups = [os.path.basename(path)[: -len(".spec.js")] for path in files]
    check("runner" in groups, "specs/runner.spec.js (the runner's own check) is missing")

    driver = browser()
    try:
        driver.set_script_timeout(120)
        driver.get(base + "/desk/")
        # The desk's own modules ran (the signed-out page is theirs to show): they load here.
        if not wait(driver, EC.visibility_of_element_located((By.ID, "signedout")), "the desk's signed-out page"):
            return report("desk specs")
        policy = driver.execute_async_script(POLICY) or ""
        check("script-src 'self'" in policy and "unsafe-eval" not in policy and "unsafe-inline" not in policy,
              f"the page is not under the desk's own Content-Security-Policy: {policy!r}")

        try:
            answer = driver.execute_async_script(script(files)) or {}
        except WebDriverException as error:  # a spec file that does not parse, or a runner that never calls back
            answer = {"error": error.msg}
        if "error" in answer or not isinstance(answer.get("results"), list):
            failures.append(f"the spec runner did not run: {answer.get('error', answer)}")
            return report("desk specs")
        results = answer["results"]
        for result in results:
            if result.get("passed"):
                print(f"ok   {result['name']}")
            else:
                failures.append(f"{result['name']}: {result.get('message')}")
        for group in groups:
            check(any(result["name"].startswith(group + ": ") for result in results), f"{group}.spec.js declared no spec")
        check(any(result["name"] == SELF_CHECK and result.get("passed") for result in results),
              "the runner's self-check did not pass: a failing assertion might pass unseen")
        print(f"{len(results)} specs from {len(files)} files")
        if shots:
            driver.execute_script(SHOW, results)
            screenshots(driver, shots, "desk-specs")
    finally:
        driver.quit()
    return report("desk specs")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
