#!/usr/bin/env python3
"""The coach's desk in a real browser: an end-of-course reply and a placement.

Usage: desk_eoc_flow.py BASE_URL LOGIN_LINK SCREENSHOT_DIR EOC_SUBMISSION_ID ASSESSMENT_ID MICROPHONE_WAV STUDENT_TOKEN

LOGIN_LINK signs in a placing coach whose queue holds an end-of-course recording
(EOC_SUBMISSION_ID, by the student whose token is STUDENT_TOKEN) and an unplaced student's
placement assessment (ASSESSMENT_ID). Flows:
- the queue names both kinds (end-of-course, placement assessment);
- a mark with a spoken correction recorded in place (leaving before it is added asks first;
  staying keeps it) is listed with its audio;
- that mark edited (another kind, a note): the list shows the new kind and note with the same
  correction, after a reload too; edited again, its correction recorded anew (the form offers
  "Record a new correction" and "Remove its correction"; Remove then Cancel changes nothing):
  saved, the list plays the new correction from its new address, after a reload too; the
  student gets the edited mark with the new correction with the reply;
- an end-of-course reply without a result is refused by the desk with a sentence (nothing
  sent), and by the route itself (422 `eoc_result_missing`); with "pass" it is stored and
  shown under the recording with its result;
- the assessment offers placement (the levels and coaches of the programme); placing the
  student in L1 with coach C02 says so, and the route's placement stands.
"""
import re
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from desk_common import browser, check, click, failures, fetch, record, report, screenshots, sign_in, wait

# The first mark of the list as the page shows it: its text, and where its spoken correction plays from.
MARK_ROW = """const row = document.querySelector('#mark-list li');
    return row && {text: row.innerText, correction: row.querySelector('audio')?.getAttribute('src') ?? null};"""
EDITED = "The qalqalah on the dal is missing"


def record_correction(driver):
    """Records a correction of at least two seconds with the form's button; True once it can be listened to."""
    button = driver.find_element(By.ID, "mark-record")
    button.click()
    if wait(driver, lambda d: button.text == "Stop", "the correction's recording to start"):
        # At least two seconds, however the clock's text advances (a loaded machine may skip 0:02).
        wait(driver, lambda d: recorded_seconds(d.find_element(By.ID, "mark-take").text) >= 2, "two seconds of correction")
        button.click()
    return wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#mark-take audio")), "the correction to listen to") is not None


def record_correction_again(driver, eoc, shots):
    """Edits the mark again and records its correction anew: Remove then Cancel first changes
    nothing; saved, the list plays the new correction from its new address (after a reload too),
    and the submission lists that address."""
    before = driver.execute_script(MARK_ROW) or {}
    check(click(driver, "#mark-list li .edit"), "the mark offers no Edit")
    wait(driver, lambda d: d.find_element(By.ID, "mark-add").text == "Save mark", "Edit to fill the form with the mark")
    record = driver.find_element(By.ID, "mark-record")
    check(record.is_displayed() and record.text == "Record a new correction", f"editing a mark with a correction offers {record.text!r}")
    drop = driver.find_element(By.ID, "mark-drop-clip")
    check(drop.is_displayed(), "editing a mark with a correction does not offer to remove it")
    drop.click()
    check("removed once the mark is saved" in driver.find_element(By.ID, "mark-status").text, "Remove does not say when the correction goes")
    driver.find_element(By.ID, "mark-cancel").click()
    check(not drop.is_displayed() and driver.find_element(By.ID, "mark-record").text == "Record a correction",
          "Cancel leaves the form editing a mark")
    check((driver.execute_script(MARK_ROW) or {}).get("correction") == before.get("correction"), "Remove then Cancel changed the correction")

    check(click(driver, "#mark-list li .edit"), "the mark offers no Edit again")
    wait(driver, lambda d: d.find_element(By.ID, "mark-add").text == "Save mark", "Edit to fill the form with the mark again")
    if not record_correction(driver):
        return
    # The new take replaces the old correction: the form offers to remove the take, not the old one.
    check(not drop.is_displayed() and driver.find_element(By.ID, "mark-record").text == "Remove the new correction",
          f"with a new take the form offers {driver.find_element(By.ID, 'mark-record').text!r} and Remove its correction shown: {drop.is_displayed()}")
    # Edit pressed again with the take unsaved: the take stays, and the form says why.
    check(click(driver, "#mark-list li .edit"), "the mark offers no Edit while a correction is recorded")
    check("Save or remove the correction" in driver.find_element(By.ID, "mark-status").text
          and driver.find_element(By.CSS_SELECTOR, "#mark-take audio").is_displayed(), "Edit dropped the recorded correction")
    screenshots(driver, shots, "mark-correction-again", show="marks")
    driver.find_element(By.ID, "mark-add").click()
    wait(driver, lambda d: "with its new correction" in d.find_element(By.ID, "mark-status").text, "the mark saved with its new correction", seconds=60)
    for when in ["once saved", "after a reload"]:
        if when == "after a reload":
            driver.refresh()
        shown = wait(driver, lambda d: (lambda row: row if row and row["correction"] and row["correction"] != before.get("correction") else None)(
            d.execute_script(MARK_ROW)), f"the mark's new correction listed {when}")
        if shown:
            check(EDITED in shown["text"] and "?clip=" in shown["correction"], f"the mark {when}: {shown}")
    notes = (fetch(driver, "GET", "/v1/submissions/" + eoc)[1] or {}).get("annotations") or []
    audio = ((notes[0].get("audio") or {}).get("links") or {}).get("audio") if len(notes) == 1 else None
    check(audio and audio != before.get("correction") and audio == (driver.execute_script(MARK_ROW) or {}).get("correction"),
          f"the submission's mark after its correction was recorded again: {notes}")
    return audio


def edit_correction_mark(driver, eoc):
    """Edits the recording's one mark, which has a spoken correction: another kind and a note.
    The correction stays (an edit of its moment, ayah, kind and note keeps its recording); the
    list shows the edit with the same correction, and so it does after a reload."""
    before = driver.execute_script(MARK_ROW) or {}
    check(click(driver, "#mark-list li .edit"), "the mark with a spoken correction offers no Edit")
    wait(driver, lambda d: d.find_element(By.ID, "mark-add").text == "Save mark", "Edit to fill the form with the mark")
    Select(driver.find_element(By.ID, "mark-kind")).select_by_value("tajweed")
    field = driver.find_element(By.ID, "mark-text")
    field.clear()
    field.send_keys(EDITED)
    driver.find_element(By.ID, "mark-add").click()
    for when in ["once saved", "after a reload"]:
        if when == "after a reload":
            driver.refresh()
        shown = wait(driver, lambda d: (lambda row: row if row and EDITED in row["text"] else None)(d.execute_script(MARK_ROW)),
                     f"the edited mark listed {when}")
        if shown:
            check("Tajweed" in shown["text"], f"the edited mark's kind {when}: {shown['text']!r}")
            check(shown["correction"] and shown["correction"] == before.get("correction"),
                  f"the mark's spoken correction {when}: {shown['correction']!r}, was {before.get('correction')!r}")
    notes = (fetch(driver, "GET", "/v1/submissions/" + eoc)[1] or {}).get("annotations") or []
    check(len(notes) == 1 and notes[0].get("kind") == "tajweed" and notes[0].get("text") == EDITED and notes[0].get("audio") is not None,
          f"the submission's marks after the edit: {notes}")


def recorded_seconds(text):
    """The seconds of "recording m:ss (at most …)", or 0."""
    found = re.search(r"recording (\d+):(\d\d)", text)
    return int(found.group(1)) * 60 + int(found.group(2)) if found else 0


def main(argv):
    base, link, shots, eoc, assessment, microphone, student_token = argv[1:8]
    driver = browser(microphone=microphone)
    try:
        if not sign_in(driver, link, base):
            return report("desk end-of-course and placement flows")
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")), "the queue's rows")
        rows = {r.get_attribute("data-submission"): r.text for r in driver.find_elements(By.CSS_SELECTOR, "#queue-list li")}
        check("End-of-course" in rows.get(eoc, ""), f"the queue does not show the end-of-course recording as such: {rows.get(eoc)!r}")
        check("Placement assessment" in rows.get(assessment, ""), f"the queue does not show the assessment as such: {rows.get(assessment)!r}")
        screenshots(driver, shots, "queue-eoc")

        # End of course: the result is required, by the desk and by the route.
        driver.get(base + "/desk/#/review/" + eoc)
        result = wait(driver, EC.visibility_of_element_located((By.ID, "reply-result")), "the end-of-course result's choice")
        check(result is not None and "required" in result.text, "the result is not said to be required")
        check(not driver.find_element(By.ID, "placement").is_displayed(), "placement is offered on an end-of-course recording")
        # A mark with a spoken correction recorded in place (1–30 s, through the audio chain).
        driver.find_element(By.ID, "mark-here").click()
        record_correction(driver)
        # Leaving with a correction not yet on a mark asks first (the browser cannot keep it); staying keeps it.
        driver.execute_script("setTimeout(() => { location.hash = '#/queue'; }, 0)")
        if wait(driver, EC.alert_is_present(), "the question before leaving a recorded correction"):
            question = driver.switch_to.alert
            check("correction" in question.text and "lose it" in question.text, f"the question before leaving: {question.text!r}")
            question.dismiss()
        wait(driver, lambda d: d.current_url.endswith("#/review/" + eoc), "the review's address after staying")
        check(driver.find_element(By.CSS_SELECTOR, "#mark-take audio").is_displayed(), "the recorded correction is gone after staying")
        driver.find_element(By.ID, "mark-add").click()
        spoken = wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#mark-list li audio")), "the mark with its spoken correction", seconds=60)
        if spoken:
            check("/v1/annotations/" in (spoken.get_attribute("src") or ""), "the spoken correction does not play from its route")
        notes = (fetch(driver, "GET", "/v1/submissions/" + eoc)[1] or {}).get("annotations") or []
        check(len(notes) == 1 and notes[0].get("audio") is not None, f"the submission's marks: {notes}")
        edit_correction_mark(driver, eoc)
        correction = record_correction_again(driver, eoc, shots)

        record(driver)
        driver.find_element(By.ID, "reply-send").click()
        wait(driver, lambda d: "pass or retake" in d.find_element(By.ID, "reply-status").text, "the desk's refusal without a result")
        check((fetch(driver, "GET", "/v1/submissions/" + eoc)[1] or {}).get("feedback") == [], "a reply was stored without a result")
        csrf = (fetch(driver, "GET", "/desk/session")[1] or {}).get("csrf_token", "")
        direct = fetch(driver, "POST", f"/v1/submissions/{eoc}/feedback", {"Content-Type": "audio/ogg", "X-CSRF-Token": csrf}, "OggS")
        check(direct[0] == 422 and (direct[1] or {}).get("code") == "eoc_result_missing", f"the route without a result: {direct}")
        screenshots(driver, shots, "eoc-result-missing", show="reply")
        driver.find_element(By.CSS_SELECTOR, "#reply-result input[value=pass]").click()
        driver.find_element(By.ID, "reply-send").click()
        wait(driver, EC.visibility_of_element_located((By.ID, "reply-sent")), "the stored end-of-course reply", seconds=60)
        check("result: pass" in driver.find_element(By.ID, "reply-sent-meta").text, "the stored reply does not show its result")
        wait(driver, EC.visibility_of_element_located((By.ID, "reply-audio")), "the end-of-course reply once it is ready", seconds=120)
        replies = (fetch(driver, "GET", "/v1/submissions/" + eoc)[1] or {}).get("feedback") or [{}]
        check(replies[0].get("result") == "pass", f"the stored reply's result: {replies}")
        # The student sees the marks once the reply is out: the edited one, with its correction.
        student = {"Authorization": "Bearer " + student_token}
        seen = wait(driver, lambda d: (fetch(d, "GET", "/v1/submissions/" + eoc, student)[1] or {}).get("annotations"),
                    "the marks reaching the student with the reply") or []
        check(len(seen) == 1 and seen[0].get("text") == EDITED and seen[0].get("kind") == "tajweed"
              and ((seen[0].get("audio") or {}).get("links") or {}).get("audio") == correction,
              f"the marks the student gets with the reply (the correction recorded again, {correction}): {seen}")

        # A placement assessment: the placing coach places the student.
        driver.get(base + "/desk/#/review/" + assessment)
        panel = wait(driver, EC.visibility_of_element_located((By.ID, "placement")), "the placement panel")
        if panel:
            levels = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "place-level")).options]
            check(levels[:2] == ["L1", "L2"], f"the levels offered: {levels}")
            check(not driver.find_element(By.ID, "reply-result").is_displayed(), "an assessment asks for an end-of-course result")
            Select(driver.find_element(By.ID, "place-level")).select_by_value("L1")
            Select(driver.find_element(By.ID, "place-coach")).select_by_value("C02")
            screenshots(driver, shots, "placement")
            driver.find_element(By.ID, "place-send").click()
            wait(driver, lambda d: "is placed in" in d.find_element(By.ID, "placement-status").text, "the placement's confirmation")
            status = driver.find_element(By.ID, "placement-status").text
            check("Foundations" in status and "Yusuf" in status, f"the confirmation does not name the level and coach: {status!r}")
    finally:
        driver.quit()
    return report("desk end-of-course and placement flows")



if __name__ == "__main__":
    sys.exit(main(sys.argv))
