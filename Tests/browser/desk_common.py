"""What the desk's browser flows share: Debian's headless Chromium driven by Selenium, the
failures list each flow appends to, screenshots at a desktop's and a phone's size, waits that
record what they waited for, and signing in by a login link's button."""
import json
import os
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def browser(microphone=None, env=None):
    """Headless Chromium; `microphone` (an absolute path to a WAV) is what its fake microphone hears;
    `env` the environment it runs in (e.g. FONTCONFIG_FILE: the fonts the machine has)."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--lang=en-US",
                     "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                     "--autoplay-policy=no-user-gesture-required"]:
        options.add_argument(argument)
    if microphone:
        options.add_argument("--use-file-for-fake-audio-capture=" + os.path.abspath(microphone))
    # Debian's chromedriver, never Selenium Manager (which would try the network).
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver", env=env), options=options)


def screenshots(driver, directory, name, show=None):
    """The window at each size of SIZES into DIRECTORY/NAME-<size>.png; `show` is the id of
    an element scrolled to the top after each resize (the layout moves it)."""
    for label, (width, height) in SIZES.items():
        driver.set_window_size(width, height)
        time.sleep(0.2)  # let the layout settle after the resize (not a timing assertion)
        if show:
            driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", show)
        driver.save_screenshot(os.path.join(directory, f"{name}-{label}.png"))
    driver.set_window_size(*SIZES["desktop"])


# How long a wait may last before it counts as a hang: a detector only, never a verdict on speed
# (a busy box stretches every step; issue 41). A caller's shorter `seconds` is raised to it.
HANG_SECONDS = 180


def wait(driver, condition, what, seconds=HANG_SECONDS):
    """`condition` once it holds, else None with a failure recorded. An element the page
    replaced meanwhile (the queue re-renders every few seconds) is looked for again."""
    try:
        return WebDriverWait(driver, max(seconds, HANG_SECONDS), ignored_exceptions=[NoSuchElementException, StaleElementReferenceException]).until(condition)
    except Exception:
        failures.append(f"timed out waiting for {what} (at {driver.current_url})")
        return None


def tanzil(surah, ayah):
    """An ayah's text from the repository's Tanzil file (data/quran/quran-uthmani.txt)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "quran", "quran-uthmani.txt")
    prefix = f"{surah}|{ayah}|"
    with open(path, encoding="utf-8") as file:
        return next(line.rstrip("\n")[len(prefix):] for line in file if line.startswith(prefix))


def keys(driver, *sequence):
    """Types to whatever has the focus, as a person would."""
    ActionChains(driver).send_keys(*sequence).perform()


def audio(driver, expression):
    return driver.execute_script("const audio = document.getElementById('audio'); return " + expression + ";")


def slider_value(driver):
    value = driver.find_element(By.ID, "waveform").get_attribute("aria-valuenow")
    return int(value) if value is not None else None


def record(driver, seconds=3):
    """Records a reply take of at least `seconds` with the review's record button (clicks)."""
    button = driver.find_element(By.ID, "reply-record")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    if wait(driver, lambda d: button.text == "Stop recording", "the recording to start"):
        wait(driver, lambda d: int(d.find_element(By.ID, "reply-clock").text.split(":")[-1]) >= seconds, f"{seconds} s of recording")
        button.click()
    wait(driver, EC.visibility_of_element_located((By.ID, "reply-preview")), "the take to listen to")


def click(driver, selector):
    """Clicks the element `selector` finds, found and clicked in one step in the page: a list
    the page re-renders meanwhile (the queue, every 5 s) leaves no stale element to click.
    True when there was one."""
    return driver.execute_script("const e = document.querySelector(arguments[0]); if (e) e.click(); return Boolean(e);", selector)


def sign_in(driver, link, base):
    """Opens a login link and presses its button; True once the desk's queue shows."""
    driver.get(link)
    button = wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]")), "the sign-in button")
    if not button:
        return False
    button.click()
    return wait(driver, EC.visibility_of_element_located((By.ID, "queue")), "the queue after signing in") is not None


def fetch(driver, method, path, headers=None, body=None):
    """A request made by the page itself (its cookie, no CSRF token unless given): [status, JSON or None]."""
    return driver.execute_async_script("""const [method, path, headers, body, done] = arguments;
        fetch(path, {method, headers, body, credentials: 'same-origin'})
          .then(async (r) => done([r.status, (r.headers.get('Content-Type') || '').includes('json') ? await r.json() : null]))
          .catch((e) => done([0, String(e)]));""", method, path, headers or {}, body)


# Holds the answers to the page's own requests (fetch) whose address matches a pattern until the
# flow releases them: the page shows what it shows while a server is slow, for as long as the flow
# looks at it (no latency racing the flow's polls). A function of the pattern, run in the page.
HOLD = """(pattern) => {
  if (!window.deskHolds) {
    window.deskHolds = [];
    const original = window.fetch.bind(window);
    window.fetch = (input, init) => {
      const address = String(input?.url ?? input);
      const hold = window.deskHolds.find((h) => h.pattern.test(address));
      const answer = original(input, init);
      if (!hold) return answer;
      hold.held += 1;
      return answer.finally(() => hold.released);
    };
    window.deskRelease = () => window.deskHolds.splice(0).forEach((h) => h.release());
  }
  const hold = {pattern: new RegExp(pattern), held: 0};
  hold.released = new Promise((resolve) => { hold.release = resolve; });
  window.deskHolds.push(hold);
}"""


def hold(driver, pattern, every_page=False):
    """Holds the page's answers from addresses matching `pattern` (a JavaScript regex) until
    release(). With `every_page` each page opened from now on holds them from its first script
    on, until unhold(driver, the id returned); else the page open now."""
    source = f"({HOLD})({json.dumps(pattern)})"
    if every_page:
        return driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})["identifier"]
    driver.execute_script(source)
    return None


def release(driver):
    """The held answers reach the page, and later ones are not held."""
    driver.execute_script("window.deskRelease?.()")


def held(driver):
    """How many of the page's requests are being held now."""
    return driver.execute_script("return (window.deskHolds || []).reduce((sum, h) => sum + h.held, 0)")


def unhold(driver, identifier):
    """Pages opened from now on hold nothing (the end of hold(every_page=True))."""
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier})


# The draft the page keeps for one recording (drafts.js: IndexedDB `tilawa-desk`, store `drafts`,
# keyed by the coach and the recording), as plain values; null when there is none.
DRAFT = """const [coach, id, done] = arguments;
    const open = indexedDB.open('tilawa-desk');
    open.onerror = () => done('no database');
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('drafts')) { db.close(); return done(null); }
      const get = db.transaction('drafts').objectStore('drafts').get(coach + '\\u0000' + id);
      get.onsuccess = () => { const d = get.result; db.close();
        done(d ? {notes: d.notes, seconds: d.take ? d.take.seconds : null, bytes: d.take ? d.take.blob.size : 0,
                  keys: d.take ? Object.keys(d.take.keys || {}).length : 0, mark: d.mark ? d.mark.text : null,
                  answer: d.answer ?? null} : null); };
      get.onerror = () => done('unreadable');
    };"""


def draft(driver, coach, submission):
    """The draft the page keeps for `submission` (notes, take seconds and bytes, the send's keys,
    a mark being written, an answer being typed), or None."""
    return driver.execute_async_script(DRAFT, coach, submission)


def report(name):
    """Prints each failure and a summary line; the exit status (1 on any failure)."""
    for failure in failures:
        print("FAIL " + failure)
    print(f"{name}: {len(failures)} failures")
    return 1 if failures else 0
