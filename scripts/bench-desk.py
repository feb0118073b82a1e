#!/usr/bin/env python3
"""The desk's figures in headless Chromium (run by scripts/bench-desk.sh).

Usage: bench-desk.py LOGIN_LINK BASE_URL LONG_SUBMISSION_ID QUEUE_LENGTH

Prints `ready MS`, `click-to-sound-start MS`, `click-to-sound-seek MS` (medians of 7) and each run.
- ready: a fresh navigation to /desk/ (signed in, nothing cached: the page is no-store, the
  assets revalidated by ETag) to the first queue row painted, from Chromium's Element Timing
  entry (`elementtiming` on each row's link), which is relative to navigation start.
- click-to-sound: on the 15-minute recording's review, once the page shows it (the waveform
  drawn), the play button's click to the `playing` event with currentTime past where it was;
  from 0:00, and after a seek to 10:00. Each run is a fresh load of the review.
"""
import statistics
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

RUNS = 7


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--autoplay-policy=no-user-gesture-required"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def ready(driver, base, rows):
    driver.get("about:blank")
    driver.get(base + "/desk/")
    WebDriverWait(driver, 60).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#queue-list li")) >= rows)
    return driver.execute_async_script("""const done = arguments[arguments.length - 1];
        new PerformanceObserver((list, observer) => {
          const first = list.getEntries().find((e) => e.identifier === 'queue-row');
          if (first) { observer.disconnect(); done(first.renderTime || first.loadTime); }
        }).observe({type: 'element', buffered: true});""")


def click_to_sound(driver, base, submission, at):
    driver.get("about:blank")
    driver.get(base + "/desk/#/review/" + submission)
    WebDriverWait(driver, 60).until(lambda d: int(d.find_element(By.ID, "waveform").get_attribute("aria-valuemax") or 0) > 800)
    WebDriverWait(driver, 60).until(EC.element_to_be_clickable((By.ID, "play")))
    if at:
        driver.execute_script("document.getElementById('audio').currentTime = arguments[0]", at)
        WebDriverWait(driver, 60).until(lambda d: d.execute_script(
            "const a = document.getElementById('audio'); return !a.seeking && Math.abs(a.currentTime - arguments[0]) < 1", at))
    return driver.execute_async_script("""const done = arguments[arguments.length - 1];
        const audio = document.getElementById('audio');
        const from = audio.currentTime;
        let t0 = 0, playing = false;
        const check = () => {
          if (playing && audio.currentTime > from + 0.001) return done(performance.now() - t0);
          requestAnimationFrame(check);
        };
        audio.addEventListener('playing', () => { playing = true; }, {once: true});
        t0 = performance.now();
        document.getElementById('play').click();
        requestAnimationFrame(check);""")


def main(argv):
    link, base, long_id, rows = argv[1], argv[2], argv[3], int(argv[4])
    driver = browser()
    try:
        driver.get(link)
        WebDriverWait(driver, 30).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]"))).click()
        WebDriverWait(driver, 60).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")))
        shown = len(driver.find_elements(By.CSS_SELECTOR, "#queue-list li"))
        ready(driver, base, rows)  # one warm-up: the first load also fills the HTTP cache's ETags
        readies = [ready(driver, base, rows) for _ in range(RUNS)]
        starts = [click_to_sound(driver, base, long_id, 0) for _ in range(RUNS)]
        seeks = [click_to_sound(driver, base, long_id, 600) for _ in range(RUNS)]
    finally:
        driver.quit()
    print(f"queue rows shown: {shown}")
    for name, values in [("ready", readies), ("click-to-sound-start", starts), ("click-to-sound-seek", seeks)]:
        print(f"{name} {statistics.median(values):.0f} ms (runs: {', '.join(f'{v:.0f}' for v in values)})")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
