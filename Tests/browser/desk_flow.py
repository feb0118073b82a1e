#!/usr/bin/env python3
"""The coach's desk in a real browser: Debian's headless Chromium driven by Selenium.

Usage: desk_flow.py BASE_URL LOGIN_LINK OTHER_COACH_LINK SCREENSHOT_DIR OLDEST_SUBMISSION_ID

Flows, each asserted (exit 1 with one line per failure):
- the login link opens a page with a button; the button signs in and lands on /desk/ with the
  coach's queue (the student's recording listed);
- the whole sign-in and sign-out done with the keyboard alone (Tab, Enter);
- the session cookie is HttpOnly (the page's script cannot read it);
- the oldest recording's row, in a browser set to the programme's zone (America/New_York), says
  exactly when it is due ("due Tue 10:00": a weekday and a 24-hour time), when it arrived
  ("arrived Sun 22 Nov 10:00") and how long it is ("· 0:11 long"), each the queue route's own
  instant in that zone (the fixture's: received Sunday 22 November 2026 10:00, due 48 h later);
- while the queue or a recording loads (the server's answer held back), the page says so in a
  sentence ("Loading the queue…", "Loading the recording…"), never a blank page or an error, and
  what loads takes its place; a review's address opened afresh says it loads the recording;
- the review, with the keyboard alone: Tab to the oldest recording's row, Enter opens its review
  (`#/review/<id>`) with the student, week and passage and the ayahs in Arabic (the basmala on
  its own line, the Tanzil attribution); Space plays (currentTime advances) and pauses; Tab to
  the waveform, an ARIA slider: Home, then → moves currentTime and aria-valuenow by 5 s; `[`
  makes it 0.75× with the pitch kept; `A` at 0:05, `B` at 0:10 and `L` loop it (played, it
  comes back from B to A), `L` again ends the loop; "loop this ayah" is offered
  exactly when the submission's ayahs carry times; Back returns to the queue and stops the audio;
- `J`/`K` and Previous/Next step through the queue in its order, the player taking the focus;
  the shortcuts follow the keys' places in an Arabic layout (`J` types "ت", `M` "ة"); Escape
  leaves the mark's note for the player; Space on a clicked button plays, never presses it again;
- offline, the queue says in a sentence that the server cannot be reached (never "Failed to
  fetch"), and the sentence goes once online again;
- the review's control and card borders and the waveform's colours are at 3:1 or more against
  what is behind them;
- a used link is refused; sign-out ends the session (the desk shows it is signed out);
- another coach's session does not list the first coach's student.
Screenshots of each screen at 1280x800 and 390x844 go to SCREENSHOT_DIR.
"""
import os
import sys

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from desk_common import SIZES, audio, browser, check, failures, keys, report, screenshots, slider_value, tanzil, wait
from desk_queue_checks import loading_flow, row_times

# WCAG 2 contrast on the review (1.4.11, 3:1): each visible, enabled control's and card's border
# against the first opaque background behind it, and each opaque pixel of the waveform's overview
# (peaks, playhead, marks) against the waveform's own background.
CONTRAST = """
const rgb = (text) => (String(text).match(/[\\d.]+/g) || []).map(Number);
const linear = (v) => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
const luminance = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const opaque = (c) => c.length === 3 || c[3] === 1;
const behind = (node) => {
  for (let n = node.parentElement; n; n = n.parentElement) {
    const c = rgb(getComputedStyle(n).backgroundColor);
    if (opaque(c)) return c;
  }
  return [255, 255, 255];
};
const borders = [...document.querySelectorAll(arguments[0])]
  .filter((e) => e.getClientRects().length > 0 && !e.disabled && e.getAttribute('aria-disabled') !== 'true')
  .filter((e) => { const s = getComputedStyle(e); return s.borderTopStyle !== 'none' && parseFloat(s.borderTopWidth) > 0; })
  .map((e) => [e.id || e.className || e.tagName.toLowerCase(), ratio(rgb(getComputedStyle(e).borderTopColor), behind(e))]);
const canvas = document.getElementById('overview');
const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
const ground = behind(canvas);
let pixels = 0, lowest = 21;
for (let i = 0; i < data.length; i += 4) {
  if (data[i + 3] !== 255) continue;
  pixels += 1;
  lowest = Math.min(lowest, ratio([data[i], data[i + 1], data[i + 2]], ground));
}
return {count: borders.length, low: borders.filter(([, r]) => r < 3).map(([what, r]) => `${what} ${r.toFixed(2)}:1`),
        peaks: pixels > 4 * canvas.height, lowest};
"""
BORDERED = "#review button, #review select, #review textarea, #review input[type=text], #review .player, #review .panel, #review .ayah"


def review_flow(driver, base, shots, oldest):
    """The oldest recording's review, with the keyboard alone."""
    driver.get(base + "/desk/")
    wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")), "the queue before the review")
    row_link = None
    for _ in range(10):  # the header's button, then the queue's first row
        keys(driver, Keys.TAB)
        active = driver.switch_to.active_element
        if active.get_attribute("class") and "open" in active.get_attribute("class").split():
            row_link = active
            break
    if row_link is None:
        failures.append("Tab never reaches a queue row's link")
        return
    check(driver.execute_script("return arguments[0].closest('li').dataset.submission", row_link) == oldest,
          "the first queue row Tab reaches is not the oldest recording")
    check(row_link.get_attribute("href").endswith("#/review/" + oldest), "the row's link is not the recording's review")
    keys(driver, Keys.ENTER)
    if not wait(driver, EC.url_to_be(base + "/desk/#/review/" + oldest), "the review's address after Enter on the row"):
        return
    wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#ayah-list li .verse")), "the ayahs of the review")
    check(driver.find_element(By.ID, "queue").is_displayed() is False, "the queue is still shown beside the review")
    check("Aisha" in driver.find_element(By.ID, "review-title").text, "the review does not name the student")
    check("Week 12" in driver.find_element(By.ID, "review-meta").text, "the review does not say the kind and week")
    check("104:1-9" in driver.find_element(By.ID, "review-passage").text, "the review does not show the passage")

    # The passage ayah by ayah in Arabic: Al-Humaza's nine, the basmala on a line of its own.
    items = driver.find_elements(By.CSS_SELECTOR, "#ayah-list li")
    check(len(items) == 9, f"the review lists {len(items)} ayahs, not Al-Humaza's 9")
    verses = driver.find_elements(By.CSS_SELECTOR, "#ayah-list .verse")
    check(all(v.get_attribute("lang") == "ar" and v.get_attribute("dir") == "rtl" for v in verses),
          "an ayah is not marked lang=ar dir=rtl")
    check(all(any("\u0621" <= ch <= "\u064a" for ch in v.text) for v in verses), "an ayah shows no Arabic letters")
    basmala = driver.find_elements(By.CSS_SELECTOR, "#ayah-list li:first-child .basmala")
    check(len(basmala) == 1 and basmala[0].text.startswith("بِسْمِ"), "the basmala is not on a line of its own before 104:1")
    check(basmala and basmala[0].get_attribute("lang") == "ar", "the basmala is not marked Arabic")
    check(not verses[0].text.startswith("بِسْمِ"), "104:1 still begins with the basmala")
    check(verses[0].text.startswith("وَيْلٌ"), "104:1 does not begin with its first word")
    check([i.find_element(By.CSS_SELECTOR, ".ref").text for i in items][:2] == ["104:1", "104:2"], "the ayahs are not numbered")
    attribution = driver.find_element(By.CSS_SELECTOR, "#ayahs-section .attribution")
    check(attribution.is_displayed() and "Tanzil Project, tanzil.net, CC BY 3.0" in attribution.text, "the Tanzil attribution is not shown")

    # The player: Chromium reads Ogg Opus, so the plain audio route (with Range); pitch kept.
    wait(driver, lambda d: (slider_value(d) is not None and int(d.find_element(By.ID, "waveform").get_attribute("aria-valuemax")) > 5),
         "the recording's length on the waveform slider")
    source = audio(driver, "audio.currentSrc")
    check(source.endswith("/v1/submissions/" + oldest + "/audio"), f"Chromium plays {source}, not the Ogg route")
    check(audio(driver, "audio.preservesPitch") is True, "the player does not keep the pitch")
    check(driver.switch_to.active_element.get_attribute("id") == "review-title", "the review's heading does not take the focus")
    keys(driver, Keys.SPACE)
    if wait(driver, lambda d: audio(d, "!audio.paused && audio.currentTime > 0.5"), "currentTime to advance after Space"):
        check(driver.find_element(By.ID, "play").text == "Pause", "the play button does not offer Pause while playing")
    keys(driver, Keys.SPACE)
    wait(driver, lambda d: audio(d, "audio.paused"), "Space to pause")

    # The waveform is the next stop for Tab: an ARIA slider. Home, then → is 5 s later.
    keys(driver, Keys.TAB)
    waveform = driver.find_element(By.ID, "waveform")
    check(driver.switch_to.active_element == waveform, "Tab from the heading does not reach the waveform")
    check(waveform.get_attribute("role") == "slider", "the waveform is not an ARIA slider")
    keys(driver, Keys.HOME)
    wait(driver, lambda d: audio(d, "audio.currentTime") == 0 and slider_value(d) == 0, "Home to seek to the start")
    keys(driver, Keys.ARROW_RIGHT)
    if wait(driver, lambda d: abs(audio(d, "audio.currentTime") - 5) < 0.01 and slider_value(d) == 5, "→ to seek 5 s (currentTime and aria-valuenow)"):
        check(waveform.get_attribute("aria-valuetext").startswith("0:05 of 0:1"), "the slider does not speak \"0:05 of 0:1x\"")
        check(driver.find_element(By.ID, "time").text.startswith("0:05 / 0:1"), "the time shown is not \"0:05 / 0:1x\"")
    keys(driver, Keys.ARROW_LEFT)
    wait(driver, lambda d: audio(d, "audio.currentTime") < 0.01 and slider_value(d) == 0, "← to seek back 5 s")

    # Click on the waveform seeks there; a drag seeks along: a quarter, then three quarters.
    overview = driver.find_element(By.ID, "overview")
    duration = audio(driver, "audio.duration")
    width = overview.size["width"]
    ActionChains(driver).move_to_element_with_offset(overview, -width // 4, 0).click().perform()
    wait(driver, lambda d: abs(audio(d, "audio.currentTime") - duration / 4) < 0.1, "a click a quarter along the waveform to seek there")
    ActionChains(driver).move_to_element_with_offset(overview, -width // 4, 0).click_and_hold() \
        .move_by_offset(width // 4, 0).move_by_offset(width // 4, 0).release().perform()
    wait(driver, lambda d: abs(audio(d, "audio.currentTime") - 3 * duration / 4) < 0.1, "a drag to three quarters to seek there")
    check(driver.switch_to.active_element == waveform, "clicking the waveform does not give the slider the focus")
    keys(driver, Keys.HOME)
    wait(driver, lambda d: audio(d, "audio.currentTime") == 0, "Home to seek to the start again")

    # The canvases are drawn in device pixels, following the layout and the pixel ratio.
    def sharp(ratio):
        return lambda d: d.execute_script(
            "const c = document.getElementById('overview'); const w = c.getBoundingClientRect().width;"
            " return devicePixelRatio === arguments[0] && c.width === Math.round(w * arguments[0]) && w > 100", ratio)
    wait(driver, sharp(1), "the overview drawn at the layout's width")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 2, "mobile": False})
    wait(driver, sharp(2), "the overview redrawn at twice the pixels on a HiDPI screen")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    wait(driver, sharp(1), "the overview back at one device pixel per CSS pixel")

    # Borders and the waveform at 3:1 or more against what is behind them (more than the
    # playhead drawn: the peaks are there).
    seen = wait(driver, lambda d: (lambda r: r if r["peaks"] else None)(d.execute_script(CONTRAST, BORDERED)), "the waveform's peaks drawn")
    if seen:
        check(seen["count"] > 10 and not seen["low"], f"borders under 3:1 against what is behind them: {seen['low']} (of {seen['count']})")
        check(seen["lowest"] >= 3, f"a colour of the waveform is at {seen['lowest']:.2f}:1 against its ground")

    # The zoom view: `-` shows more seconds, `+` fewer again.
    zoom_in = driver.find_element(By.ID, "zoom-in")
    check(not zoom_in.is_enabled(), "an 11-s recording's zoom view does not start at its closest")
    keys(driver, "-")
    wait(driver, lambda d: zoom_in.is_enabled() and "10 s" in d.find_element(By.ID, "player-status").text, "`-` to zoom out to 10 s")
    keys(driver, "+")
    wait(driver, lambda d: not zoom_in.is_enabled() and "5 s" in d.find_element(By.ID, "player-status").text, "`+` to zoom in to 5 s")

    # The page splits the basmala as the server's TilawaQuran does, on Tanzil's own text.
    split = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        import('/desk/assets/ayahs.js').then((m) => done(arguments[0].map((a) => m.splitBasmala(a).basmala)));""",
        [{"surah": s, "ayah": a, "text": tanzil(s, a)} for s, a in [(95, 1), (97, 1), (1, 1), (9, 1), (27, 30), (114, 1)]])
    check([b is not None for b in split] == [True, True, False, False, False, True],
          f"the basmala split differs from the server's rules (95:1, 97:1 split; 1:1, 9:1, 27:30 whole; 114:1 split): {split}")
    check(split[0] == " ".join(tanzil(95, 1).split(" ")[:4]) and split[0] != tanzil(1, 1),
          "95:1's basmala is not Tanzil's own four words (with their shadda)")

    # Safari gets the MP4 variant: the choice, and the route's answer to a Range request.
    chosen = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        import('/desk/assets/player.js').then((m) => done([m.audioSource(document.getElementById('audio'), '/a'),
            m.audioSource({canPlayType: () => ''}, '/a')]));""")
    check(chosen == ["/a", "/a?format=mp4"], f"the player chooses {chosen}, not Ogg here and MP4 where Ogg is not played")
    mp4 = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        fetch('/v1/submissions/' + arguments[0] + '/audio?format=mp4', {credentials: 'same-origin', headers: {Range: 'bytes=0-99'}})
          .then((r) => done([r.status, r.headers.get('Content-Type')])).catch((e) => done([0, String(e)]));""", oldest)
    check(mp4[0] == 206 and "mp4" in (mp4[1] or ""), f"the MP4 variant answers a Range request with {mp4}")

    # `[` is one step slower: 0.75×, pitch kept; the speed list says so.
    keys(driver, "[")
    if wait(driver, lambda d: audio(d, "audio.playbackRate") == 0.75, "`[` to set 0.75×"):
        check(audio(driver, "audio.preservesPitch") is True, "0.75× does not keep the pitch")
        check(driver.find_element(By.ID, "speed").get_attribute("value") == "0.75", "the speed list does not show 0.75×")

    # The A–B loop by keys: A at 0:05, B at 0:10, `L` on; played, it comes back from B to A.
    loop = driver.find_element(By.ID, "loop")
    keys(driver, Keys.ARROW_RIGHT)
    wait(driver, lambda d: abs(audio(d, "audio.currentTime") - 5) < 0.01, "→ to 0:05")
    keys(driver, "a")
    wait(driver, lambda d: d.find_element(By.ID, "loop-a").text == "0:05", "`A` to set the loop's start at 0:05")
    keys(driver, Keys.ARROW_RIGHT)
    wait(driver, lambda d: abs(audio(d, "audio.currentTime") - 10) < 0.01, "→ to 0:10")
    keys(driver, "b")
    wait(driver, lambda d: d.find_element(By.ID, "loop-b").text == "0:10", "`B` to set the loop's end at 0:10")
    keys(driver, "l")
    wait(driver, lambda d: loop.get_attribute("aria-pressed") == "true", "`L` to turn the loop on")
    keys(driver, Keys.ARROW_LEFT)  # back to A, to play through to B
    wait(driver, lambda d: abs(audio(d, "audio.currentTime") - 5) < 0.01, "← back to 0:05")
    # The furthest point played, seen by the page itself (a timeupdate is at most 250 ms apart).
    audio(driver, """(audio.dataset.furthest = 0, audio.addEventListener('timeupdate', () => {
        audio.dataset.furthest = Math.max(Number(audio.dataset.furthest), audio.currentTime); }))""")
    keys(driver, Keys.SPACE)
    if wait(driver, lambda d: audio(d, "!audio.paused && audio.currentTime >= 9"), "the loop to play on towards B"):
        if wait(driver, lambda d: audio(d, "!audio.paused && audio.currentTime >= 5 && audio.currentTime < 9"),
                "the loop to come back from B (0:10) to A (0:05) and play on"):
            furthest = float(audio(driver, "audio.dataset.furthest"))
            check(furthest < 10.3, f"the loop played on to {furthest:.2f} s, past B (0:10)")
    keys(driver, Keys.SPACE)
    wait(driver, lambda d: audio(d, "audio.paused"), "Space to pause the loop")

    # On a phone the canvas follows the narrower layout (ResizeObserver).
    driver.set_window_size(*SIZES["phone"])
    wait(driver, lambda d: sharp(1)(d) and d.execute_script("return document.getElementById('overview').width < 390"),
         "the overview redrawn at a phone's width")
    driver.execute_script("window.scrollTo(0, 0)")
    screenshots(driver, shots, "review")
    keys(driver, "l")
    wait(driver, lambda d: loop.get_attribute("aria-pressed") == "false", "`L` to turn the loop off")

    # "Loop this ayah" exactly when the submission's ayahs carry times (not sent yet, DESIGN §9).
    timed = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/v1/submissions/' + arguments[0], {credentials: 'same-origin'}).then((r) => r.json())
          .then((s) => done(s.ayahs.length > 0 && s.ayahs.every((a) => typeof a.start_seconds === 'number')))
          .catch(() => done(null));""", oldest)
    check(timed is not None, "the page could not read the submission")
    ayah_loops = driver.find_elements(By.CSS_SELECTOR, "#ayah-list .ayah-loop")
    if timed:
        check(len(ayah_loops) == len(items), "aligned ayahs are not each offered a loop")
        if len(ayah_loops) > 1:
            ayah_loops[1].click()  # loop ayah 2
            wait(driver, lambda d: ayah_loops[1].get_attribute("aria-pressed") == "true" and loop.get_attribute("aria-pressed") == "true",
                 "\"loop this ayah\" on ayah 2")
    else:
        check(len(ayah_loops) == 0, "\"loop this ayah\" is offered without ayah times")
        check("not available" in driver.find_element(By.ID, "ayah-times").text, "the review does not say ayah markers are missing")
        before = audio(driver, "audio.currentTime")
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT).perform()
        check(audio(driver, "audio.currentTime") == before, "Shift+→ moved without ayah times")

    driver.execute_script("document.getElementById('ayahs-section').scrollIntoView()")
    screenshots(driver, shots, "review-ayahs")

    # Back returns to the queue, the audio stops, the focus is on the row it came from.
    driver.back()
    wait(driver, EC.visibility_of_element_located((By.ID, "queue")), "the queue after Back")
    check(not driver.find_element(By.ID, "review").is_displayed(), "the review stays shown after Back")
    check(audio(driver, "audio.paused && !audio.getAttribute('src')"), "the audio is still loaded after leaving the review")
    wait(driver, lambda d: d.execute_script("return document.activeElement.closest('li')?.dataset.submission") == oldest,
         "the focus back on the reviewed row")


def press(driver, key, code):
    """A key as another keyboard layout types it: `key` the character, `code` the key's place."""
    driver.execute_script("""(document.activeElement || document.body).dispatchEvent(
        new KeyboardEvent('keydown', {key: arguments[0], code: arguments[1], bubbles: true, cancelable: true}))""", key, code)


def step_flow(driver, base, shots):
    """J/K and the Previous/Next buttons step through the queue in its order, in any keyboard
    layout; the player takes the focus and keeps the speed chosen before; Escape leaves a text field for it; Space on a button
    plays and never presses that button again."""
    driver.get(base + "/desk/")
    wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")), "the queue before stepping")
    order = driver.execute_script("return [...document.querySelectorAll('#queue-list li')].map((li) => li.dataset.submission)")
    if len(order) < 2:
        failures.append(f"the queue lists {len(order)} recordings: stepping needs two")
        return
    driver.get(base + "/desk/#/review/" + order[0])
    wait(driver, EC.visibility_of_element_located((By.ID, "review-body")), "the first recording's review")
    previous, following = driver.find_element(By.ID, "prev-recording"), driver.find_element(By.ID, "next-recording")
    check(not previous.is_enabled() and following.is_enabled(), "the first recording offers a previous one, or no next")
    check(driver.find_element(By.ID, "queue-position").text == f"1 of {len(order)} waiting", "the review does not say where it is in the queue")
    screenshots(driver, shots, "review-steps")
    keys(driver, "j")
    wait(driver, EC.url_to_be(base + "/desk/#/review/" + order[1]), "`J` to open the queue's next recording")
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play", "the player to take the focus after `J`")
    # The speed chosen on the review before (0.75×) carries over: one key fewer per recording.
    wait(driver, lambda d: audio(d, "audio.playbackRate") == 0.75 and d.find_element(By.ID, "speed").get_attribute("value") == "0.75",
         "the speed chosen before (0.75×) on the next recording")
    check(previous.is_enabled(), "the second recording offers no previous one")
    keys(driver, "k")
    wait(driver, EC.url_to_be(base + "/desk/#/review/" + order[0]), "`K` to open the previous recording")
    following.click()
    wait(driver, EC.url_to_be(base + "/desk/#/review/" + order[1]), "Next to open the next recording")
    previous.click()
    wait(driver, EC.url_to_be(base + "/desk/#/review/" + order[0]), "Previous to open the previous recording")
    # An Arabic layout: J's key types "ت", M's "ة"; the shortcuts follow the keys' places.
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play", "the player to take the focus after Previous")
    press(driver, "ت", "KeyJ")
    wait(driver, EC.url_to_be(base + "/desk/#/review/" + order[1]), "`J` in an Arabic layout (\"ت\", KeyJ)")
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play", "the player to take the focus")
    press(driver, "ة", "KeyM")
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "mark-text", "`M` in an Arabic layout (\"ة\", KeyM) to mark")
    keys(driver, Keys.ESCAPE)
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play", "Escape to leave the note for the player")
    # Space after a click on +5 s plays from there: it does not press +5 s again (no second seek).
    wait(driver, lambda d: audio(d, "audio.duration > 6"), "the recording's length")
    driver.find_element(By.ID, "forward-5").click()
    wait(driver, lambda d: audio(d, "audio.currentTime") >= 5, "+5 s to seek")
    audio(driver, "(audio.dataset.seeks = 0, audio.addEventListener('seeking', () => { audio.dataset.seeks = Number(audio.dataset.seeks) + 1 }), true)")
    check(driver.switch_to.active_element.get_attribute("id") == "forward-5", "the clicked button does not keep the focus")
    keys(driver, Keys.SPACE)
    wait(driver, lambda d: audio(d, "!audio.paused"), "Space on a button to play")
    keys(driver, Keys.SPACE)
    wait(driver, lambda d: audio(d, "audio.paused"), "Space again to pause")
    check(audio(driver, "Number(audio.dataset.seeks)") == 0, "Space pressed the +5 s button again")


def main(argv):
    base, link, other_link, shots, oldest = argv[1], argv[2], argv[3], argv[4], argv[5]
    os.makedirs(shots, exist_ok=True)
    driver = browser()
    try:
        # The link opens a page; nothing is spent until the button.
        driver.get(link)
        button = wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]")), "the sign-in button")
        screenshots(driver, shots, "signin")
        # Keyboard alone: Tab to the button, Enter.
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.TAB)
        check(driver.switch_to.active_element == button, "Tab does not reach the sign-in button")
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait(driver, EC.url_to_be(base + "/desk/"), "the desk after signing in")
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")), "the first queue row")
        rows = driver.find_elements(By.CSS_SELECTOR, "#queue-list li")
        check(len(rows) >= 1, "the queue lists no recording")
        check(any("Aisha" in row.text for row in rows), "the queue does not name the student (Aisha Rahman)")
        check("Signed in as" in driver.find_element(By.ID, "who").text, "the desk does not say who is signed in")
        check(all(link.get_attribute("dir") == "auto" for link in driver.find_elements(By.CSS_SELECTOR, "#queue-list a.student")),
              "a student's name in the queue is not dir=auto")
        check(driver.execute_script("return document.cookie").find("tilawa_desk") < 0, "the session cookie is readable by script")
        screenshots(driver, shots, "queue")
        row_times(driver, oldest)

        # Offline, the queue (read again every 5 s) says so in a sentence, never the browser's
        # "Failed to fetch"; online again, the sentence goes.
        driver.set_network_conditions(offline=True, latency=0, throughput=1024 * 1024)
        error = wait(driver, EC.visibility_of_element_located((By.ID, "queue-error")), "the queue's sentence when the server cannot be reached")
        if error:
            check("could not reach the server" in error.text and "Failed to fetch" not in error.text, f"the queue offline says: {error.text!r}")
            screenshots(driver, shots, "queue-offline")
        driver.delete_network_conditions()
        wait(driver, EC.invisibility_of_element_located((By.ID, "queue-error")), "the queue's sentence gone once online again")
        loading_flow(driver, shots, oldest)
        review_flow(driver, base, shots, oldest)
        step_flow(driver, base, shots)

        # The link is spent: opening it again and pressing the button is refused.
        driver.get(link)
        again = wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]")), "the sign-in button again")
        if again:
            again.click()
            wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")), "the refusal of a used link")
            check("used already" in driver.page_source, "a used link is not refused as used")
            screenshots(driver, shots, "used-link")

        # Sign out with the keyboard: focus the button, Enter.
        driver.get(base + "/desk/")
        signout = wait(driver, EC.element_to_be_clickable((By.ID, "signout")), "the sign-out button")
        if signout:
            driver.execute_script("arguments[0].focus()", signout)
            driver.switch_to.active_element.send_keys(Keys.ENTER)
            wait(driver, EC.visibility_of_element_located((By.ID, "signedout")), "the signed-out notice")
            driver.refresh()
            wait(driver, EC.visibility_of_element_located((By.ID, "signedout")), "still signed out after a reload")
            screenshots(driver, shots, "signed-out")

        # Another coach: a session of their own does not list the first coach's student.
        driver.delete_all_cookies()
        driver.get(other_link)
        other = wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]")), "the other coach's button")
        if other:
            other.click()
            wait(driver, EC.visibility_of_element_located((By.ID, "queue")), "the other coach's desk")
            wait(driver, EC.visibility_of_element_located((By.ID, "queue-empty")), "the other coach's empty queue")
            check(all("Aisha" not in row.text for row in driver.find_elements(By.CSS_SELECTOR, "#queue-list li")),
                  "another coach's desk lists the first coach's student")
    finally:
        driver.quit()
    return report("desk flows")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
