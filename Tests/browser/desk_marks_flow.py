#!/usr/bin/env python3
"""The coach's desk in a real browser: marks move, change, and come back after a delete.

Usage: desk_marks_flow.py BASE_URL LOGIN_LINK SCREENSHOT_DIR SUBMISSION_ID LATER_ID EARLIER_ID

SUBMISSION_ID is a recording of more than 20 s, not yet answered, of the coach's student.
Flows, each asserted against the API:
- the page says marks are a draft until the reply;
- two marks by `M` (at 5 s and at 10 s); after each, the focus is back on the player;
- Edit the second: the form says Save, +0.1 s by its button and by `.`, another kind and note, saved: the
  annotation is at 10.2 s with them; the focus is back on the player;
- the first mark's marker dragged along the waveform's overview: stored at its new moment;
- Delete the second: gone from the list at once, Undo brings it back (still stored); deleted
  again, it is deleted on the server once the 10 s are up.
- LATER_ID and EARLIER_ID are two recordings of one week by another student: the later one's
  review links to the earlier one ("earlier, <when>"), which opens its review. LATER_ID recites
  Al-Fatiha for that week's Al-Fajr 89:1-14: its review gives no ayah markers (no loop, no
  "not found") and says they are not available, with the reason.
Screenshots of a mark being edited and of the wrong passage's review at 1280x800 and 390x844.
"""
import re
import sys

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from desk_common import audio, browser, check, click, failures, fetch, keys, report, screenshots, sign_in, wait


def annotations(driver, submission):
    detail = fetch(driver, "GET", "/v1/submissions/" + submission)[1] or {}
    return sorted(detail.get("annotations") or [], key=lambda a: a["at_seconds"])


def mark_at(driver, seconds, note):
    """Seeks to `seconds` (the player's own control), `M`, a note, Enter; waits for the mark on the server."""
    driver.execute_script("document.getElementById('audio').currentTime = arguments[0]", seconds)
    wait(driver, lambda d: abs(audio(d, "audio.currentTime") - seconds) < 0.05, f"the player at {seconds} s")
    driver.execute_script("document.getElementById('play').focus()")
    keys(driver, "m")
    wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "mark-text", "`M` to focus the mark's note")
    keys(driver, note, Keys.ENTER)


def main(argv):
    base, link, shots, submission, later, earlier = argv[1:7]
    driver = browser()
    try:
        if not sign_in(driver, link, base):
            return report("desk marks flows")
        driver.get(base + "/desk/#/review/" + submission)
        wait(driver, lambda d: audio(d, "audio.duration > 20"), "the recording's length")
        wait(driver, lambda d: int(d.find_element(By.ID, "waveform").get_attribute("aria-valuemax") or 0) > 20, "the waveform's peaks")
        check("draft until you send the reply" in driver.find_element(By.ID, "marks-note").text, "the page does not say marks are a draft")

        mark_at(driver, 5, "First")
        wait(driver, lambda d: len(annotations(d, submission)) == 1, "the first mark stored")
        wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play", "the focus back on the player after adding a mark")
        mark_at(driver, 10, "Second")
        wait(driver, lambda d: len(annotations(d, submission)) == 2, "the second mark stored")
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#mark-list li")) == 2, "two marks listed")

        # Edit the second: moved by +0.1 s twice, another kind and note, saved.
        check(driver.execute_script("return document.querySelectorAll('#mark-list li')[1]?.querySelector('.edit')?.getAttribute('aria-label')")
              == "Edit the mark at 0:10", "the Edit button does not name its mark")
        click(driver, "#mark-list li:nth-child(2) .edit")
        check(driver.find_element(By.ID, "mark-add").text == "Save mark", "editing a mark does not offer to save it")
        check(driver.find_element(By.ID, "mark-text").get_attribute("value") == "Second", "editing a mark does not fill in its note")
        # +0.1 s by its button, then by its key (`.`: the focus is on the button, not in a text field).
        driver.find_element(By.ID, "mark-later").click()
        keys(driver, ".")
        Select(driver.find_element(By.ID, "mark-kind")).select_by_value("harakah")
        field = driver.find_element(By.ID, "mark-text")
        field.clear()
        field.send_keys("Second, the fatha is short")
        driver.execute_script("window.scrollTo(0, 0)")
        screenshots(driver, shots, "mark-editing", show="marks")
        driver.find_element(By.ID, "mark-add").click()
        wait(driver, lambda d: (lambda a: len(a) == 2 and a[1]["kind"] == "harakah")(annotations(d, submission)), "the edited mark stored")
        stored = annotations(driver, submission)
        check(len(stored) == 2 and abs(stored[1]["at_seconds"] - 10.2) < 0.011 and stored[1]["text"] == "Second, the fatha is short",
              f"the edited mark: {stored}")
        wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play", "the focus on the player after saving a mark")
        check(driver.find_element(By.ID, "mark-add").text == "Add mark", "after saving, the form still edits")

        # Drag the first mark's marker (5 s) 60 px to the right along the overview's top.
        overview = driver.find_element(By.ID, "overview")
        box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", overview)
        duration = audio(driver, "audio.duration")
        x = box[0] * 5 / duration
        ActionChains(driver).move_to_element_with_offset(overview, int(x - box[0] / 2), int(4 - box[1] / 2)) \
            .click_and_hold().move_by_offset(30, 0).move_by_offset(30, 0).release().perform()
        expected = 5 + 60 * duration / box[0]
        moved = wait(driver, lambda d: (lambda a: a if a and a[0]["at_seconds"] > 5.5 else None)(annotations(d, submission)), "the dragged mark stored")
        check(moved is not None and abs(moved[0]["at_seconds"] - expected) < 0.5, f"the dragged mark is at {moved and moved[0]['at_seconds']}, not about {expected:.2f}")

        # Delete the second, undo, delete again: gone from the server once its 10 s are up.
        # The page shows the dragged mark's new moment once it has read the submission again.
        wait(driver, lambda d: d.execute_script("return document.querySelector('#mark-list li .at')?.textContent") != "0:05",
             "the list to show the dragged mark")
        click(driver, "#mark-list li:last-child .remove")
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#mark-list li")) == 1, "the deleted mark gone from the list")
        undo = wait(driver, EC.visibility_of_element_located((By.ID, "mark-undo")), "Undo after a delete")
        check("is deleted" in driver.find_element(By.ID, "mark-undo-row").text, "the undo line does not say what was deleted")
        if undo:
            undo.click()
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#mark-list li")) == 2, "the mark back after Undo")
        check(len(annotations(driver, submission)) == 2, "Undo did not keep the mark on the server")
        click(driver, "#mark-list li:last-child .remove")
        wait(driver, lambda d: len(annotations(d, submission)) == 1, "the deletion on the server after 10 s", seconds=60)
        check(not driver.find_element(By.ID, "mark-undo-row").is_displayed(), "Undo is still offered after the deletion")

        # The student's other recordings of the same week are a link away from the review.
        driver.get(base + "/desk/#/review/" + later)
        siblings = wait(driver, EC.visibility_of_element_located((By.ID, "review-siblings")), "the other recordings of the week")
        if siblings:
            # This later recording recites Al-Fatiha for Al-Fajr 89:1-14: the passage is listed
            # without a marker, a loop or a "not found", and the page says why.
            listed = driver.find_elements(By.CSS_SELECTOR, "#ayah-list li")
            check(len(listed) == 14, f"the wrong passage's review lists {len(listed)} ayahs, not Al-Fajr's 14")
            check(not driver.find_elements(By.CSS_SELECTOR, "#ayah-list .ayah-loop, #ayah-list .not-found"),
                  "a recording of another passage is given ayah markers")
            times = driver.find_element(By.ID, "ayah-times").text
            check(times.startswith("Ayah markers are not available for this recording — "), f"the review of another passage says: {times!r}")
            detail = fetch(driver, "GET", "/v1/submissions/" + later)[1] or {}
            check(detail.get("ayahs_unavailable_reason") and not any(a.get("start_seconds") is not None for a in detail.get("ayahs") or []),
                  f"the wrong passage's ayahs: {detail.get('ayahs_unavailable_reason')!r}, {detail.get('ayahs')}")
            screenshots(driver, shots, "review-wrong-passage", show="ayahs-section")
            links = siblings.find_elements(By.CSS_SELECTOR, "a")
            check(len(links) == 1 and re.fullmatch(r"earlier, (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d\d:\d\d", links[0].text),
                  f"the other recordings of the week: {siblings.text!r}")
            links[0].click()
            wait(driver, lambda d: d.current_url.endswith("#/review/" + earlier), "the earlier recording's review")
            wait(driver, lambda d: "later, " in d.find_element(By.ID, "review-siblings").text, "the earlier recording's link to the later one")
    finally:
        driver.quit()
    return report("desk marks flows")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
