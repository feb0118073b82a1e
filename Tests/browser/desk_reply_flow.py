#!/usr/bin/env python3
"""The coach's desk in a real browser: a review ending in a reply recorded in place.

Usage: desk_reply_flow.py BASE_URL LOGIN_LINK OTHER_COACH_LINK SCREENSHOT_DIR SUBMISSION_ID OTHER_SUBMISSION_ID MICROPHONE_WAV STUDENT_TOKEN WAITING_ID

SUBMISSION_ID is an aligned recitation of Al-Fatiha (the isti'adha, then 1:1-7) that the
coach answers; OTHER_SUBMISSION_ID another recording of the same student, never answered here.
Chromium's fake microphone hears MICROPHONE_WAV; STUDENT_TOKEN is S1003's (the same coach's).
WAITING_ID is a recording of another of the coach's students, received after SUBMISSION_ID and
before anything S1003 sends (the queue's order: OTHER_SUBMISSION_ID, SUBMISSION_ID, WAITING_ID,
then S1003's).
Flows, each asserted, with the keyboard alone (Tab, Enter, typing; no clicks):
- S1003 uploads a recording while the queue is open: it appears there without a reload;
- the review lists the passage with its times (the help line: each ayah can be looped, or
  each with a marker when one is not found): "loop this ayah" on 1:2 loops exactly 1:2;
- `M` marks the moment on the ayah being recited, the note takes the focus; a kind, a note,
  Enter: the mark is listed (time, kind, ayah) and on the submission;
- the reply: Record, the level meter moves while the fake microphone speaks, Stop at 0:05, a
  take to listen to; beside the send button the student, the week and the recording; notes;
  Send, the answer lost on the way back: the desk says to send again; again: one reply, shown
  under this recording with its notes; the submission has exactly it;
- leaving the review with the take unsent asks first; staying keeps the take;
- "Send and next" on WAITING_ID stores its reply and opens the queue's next recording (S1003's,
  named in the heading), the player taking the focus; on that one, the last waiting, it stores
  the reply and says none follows;
- a change without the CSRF token is 403 `csrf_token_missing`;
- another coach's session: the recording is 404 (the desk says it is not found), a reply
  to it 404 even with that session's own CSRF token.
Screenshots of the review with its mark and reply at 1280x800 and 390x844.
"""
import base64
import os
import re
import sys

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from desk_common import audio, browser, check, failures, fetch, keys, record as record_take, report, screenshots, sign_in, wait


def tab_to(driver, found, what, limit=60):
    """Presses Tab until `found(active element)`; False (a failure recorded) when it never is."""
    for _ in range(limit):
        keys(driver, Keys.TAB)
        if found(driver.switch_to.active_element):
            return True
    failures.append(f"Tab never reaches {what}")
    return False


def page_said(driver):
    """What the review's status lines say (when a send did not go as expected)."""
    return driver.execute_script(
        "return ['reply-status', 'player-status', 'review-error'].map((id) => document.getElementById(id).textContent).join(' | ')")


def clock_seconds(text):
    minutes, seconds = text.split(":")[-2:]
    return int(minutes) * 60 + int(seconds.split(".")[0])


def main(argv):
    base, link, other_link, shots, submission, other_submission, microphone, student_token, waiting = argv[1:10]
    driver = browser(microphone=microphone)
    try:
        if not sign_in(driver, link, base):
            return report("desk reply flows")

        # A recording made while the queue is open appears in it within seconds, without a reload.
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")), "the queue's rows")
        driver.execute_script("window.notReloaded = true")
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "audio-fixtures", "speech.opus"), "rb") as file:
            audio_bytes = base64.b64encode(file.read()).decode()
        created = driver.execute_async_script("""const [token, data, done] = arguments;
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            fetch('/v1/students/S1003/weeks/12/submissions', {method: 'POST', body: bytes,
                  headers: {'Authorization': 'Bearer ' + token, 'Content-Type': 'audio/ogg'}})
              .then(async (r) => done([r.status, (await r.json()).id])).catch((e) => done([0, String(e)]));""", student_token, audio_bytes)
        check(created[0] == 201, f"the student's upload while the queue is open: {created}")
        if wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, f"#queue-list li[data-submission='{created[1]}']")),
                "the new recording in the open queue", seconds=60):
            check(driver.execute_script("return window.notReloaded === true"), "the queue reloaded the page to show the new recording")
        driver.get(base + "/desk/#/review/" + submission)
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#ayah-list .ayah-loop")), "the aligned ayahs' loop buttons")
        wait(driver, lambda d: audio(d, "audio.duration > 20"), "the recording's length")

        # "Loop this ayah" on 1:2: the loop is exactly the ayah's span, and it is on.
        detail = fetch(driver, "GET", "/v1/submissions/" + submission)[1] or {}
        ayahs = detail.get("ayahs") or []
        second = next((a for a in ayahs if a.get("surah") == 1 and a.get("ayah") == 2), None)
        check(second is not None and isinstance(second.get("start_seconds"), (int, float)), "1:2 carries no times")
        # The help line promises a loop for every ayah only when every ayah has its marker.
        every = bool(ayahs) and all(isinstance(a.get("start_seconds"), (int, float)) for a in ayahs)
        help_line = driver.find_element(By.ID, "ayah-times").text
        check(("each ayah can be looped." if every else "each ayah with a marker can be looped.") in help_line,
              f"the help line when {'every' if every else 'not every'} ayah has a marker: {help_line!r}")
        rows = driver.find_elements(By.CSS_SELECTOR, "#ayah-list li")
        row = next((r for r in rows if r.find_element(By.CSS_SELECTOR, ".ref").text == "1:2"), None)
        if row is None or second is None:
            failures.append("the review lists no 1:2 to loop")
            return report("desk reply flows")
        button = row.find_element(By.CSS_SELECTOR, ".ayah-loop")
        # With the keyboard alone from here: Tab from the review's heading to 1:2's loop, Enter.
        driver.execute_script("document.getElementById('review-title').focus()")
        if tab_to(driver, lambda active: active == button, "1:2's \"Loop this ayah\""):
            keys(driver, Keys.ENTER)
        wait(driver, lambda d: button.get_attribute("aria-pressed") == "true"
             and d.find_element(By.ID, "loop").get_attribute("aria-pressed") == "true", "\"loop this ayah\" on 1:2")
        check(abs(audio(driver, "audio.currentTime") - second["start_seconds"]) < 0.05, "looping 1:2 does not start at 1:2")
        check("Looping ayah 1:2" in driver.find_element(By.ID, "player-status").text, "the page does not say it loops 1:2")

        # `M` marks here: the moment (1:2's start), the ayah 1:2; the note field takes the focus.
        keys(driver, "m")
        wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "mark-text", "`M` to put the focus on the mark's note")
        check(Select(driver.find_element(By.ID, "mark-ayah")).first_selected_option.text == "1:2", "the mark is not on the ayah being recited")
        check(clock_seconds(driver.find_element(By.ID, "mark-at").text) == int(second["start_seconds"]), "the mark is not at the playhead")
        # Shift+Tab back to the kind of mistake; typing "t" picks Tajweed.
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        check(driver.switch_to.active_element.get_attribute("id") == "mark-kind", "Shift+Tab from the note is not the kind of mistake")
        keys(driver, "t")
        wait(driver, lambda d: Select(d.find_element(By.ID, "mark-kind")).first_selected_option.get_attribute("value") == "tajweed", "`t` to choose Tajweed")
        keys(driver, Keys.TAB, "The madd in ar-rahman is too short", Keys.ENTER)
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#mark-list li")), "the mark listed")
        marks = driver.find_elements(By.CSS_SELECTOR, "#mark-list li")
        check(len(marks) == 1 and "Tajweed" in marks[0].text and "1:2" in marks[0].text and "madd" in marks[0].text,
              "the mark is not listed with its kind, ayah and note")
        # What a person typed takes its direction from its own letters (dir="auto"): the mark's
        # note, the student's name, the coach's own name, the fields a note is typed in.
        check(marks and marks[0].find_element(By.CSS_SELECTOR, ".text").get_attribute("dir") == "auto", "the mark's note is not dir=auto")
        for selector in ["#review-title", "#who bdi", "#mark-text", "#reply-notes", "#answer-text", "#reply-sent-notes"]:
            check(driver.execute_script("return document.querySelector(arguments[0])?.getAttribute('dir')", selector) == "auto",
                  f"{selector} is not dir=auto")
        stored = (fetch(driver, "GET", "/v1/submissions/" + submission)[1] or {}).get("annotations") or []
        check(len(stored) == 1 and stored[0].get("kind") == "tajweed" and stored[0].get("ayah") == 2, f"the submission's annotations: {stored}")

        # The reply, recorded in place: Record, the meter moves, Stop after 5 s, a take to listen to.
        target = driver.find_element(By.ID, "reply-target").text
        check("Aisha" in target and "Week 11" in target and "received" in target, f"beside the send button: {target!r}")
        check(driver.find_element(By.ID, "reply-send").text == "Send reply to Aisha Rahman", "the send button does not name the student")
        record = driver.find_element(By.ID, "reply-record")
        if tab_to(driver, lambda active: active == record, "the reply's record button"):
            keys(driver, Keys.ENTER)
        if wait(driver, lambda d: record.text == "Stop recording", "the recording to start"):
            check(wait(driver, lambda d: d.execute_script(
                "return parseFloat(document.getElementById('reply-level').style.width) > 0"), "the level meter to move") is not None,
                "the level meter never moves while the microphone speaks")
            wait(driver, lambda d: clock_seconds(d.find_element(By.ID, "reply-clock").text) >= 5, "five seconds of recording")
            keys(driver, Keys.ENTER)
        wait(driver, EC.visibility_of_element_located((By.ID, "reply-preview")), "the take to listen to")
        check(driver.find_element(By.ID, "reply-preview").get_attribute("src").startswith("blob:"), "the take is not offered to listen to")
        check(record.text == "Record again", "after a take the record button does not offer to record again")
        check(driver.switch_to.active_element.get_attribute("id") == "reply-preview", "after a take the focus is not on listening to it")
        # Leaving with the take unsent asks first; staying keeps the take and the review.
        driver.execute_script("setTimeout(() => document.getElementById('back').click(), 0)")
        if wait(driver, EC.alert_is_present(), "the question before leaving an unsent reply"):
            question = driver.switch_to.alert
            check("not been sent" in question.text, f"the question before leaving: {question.text!r}")
            question.dismiss()
        wait(driver, lambda d: d.current_url.endswith("#/review/" + submission), "the review's address after choosing to stay")
        check(driver.find_element(By.ID, "reply-preview").is_displayed(), "the take is gone after choosing to stay")
        check(driver.find_element(By.ID, "review").is_displayed(), "the review is gone after choosing to stay")
        driver.execute_script("document.getElementById('reply-preview').focus()")
        if tab_to(driver, lambda active: active.get_attribute("id") == "reply-notes", "the reply's notes"):
            keys(driver, "Good recitation; mind the madd in 1:2.")
        # The first send's answer is lost on the way back (the server stores the reply; the page
        # sees status 0, as when a phone's connection drops): the desk says to send again, and
        # sending again stores nothing twice — the same take carries the same Idempotency-Key.
        driver.execute_script("""
            const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
            window.lostAnswers = 0;
            XMLHttpRequest.prototype.open = function (method, url, ...rest) { this.lostUrl = url; return open.call(this, method, url, ...rest); };
            XMLHttpRequest.prototype.send = function (body) {
              if (window.lostAnswers === 0 && String(this.lostUrl).includes('/feedback')) {
                window.lostAnswers = 1;
                Object.defineProperty(this, 'status', {get: () => 0});
                Object.defineProperty(this, 'responseText', {get: () => ''});
              }
              return send.call(this, body);
            };""")
        if tab_to(driver, lambda active: active.get_attribute("id") == "reply-send", "the send button"):
            keys(driver, Keys.ENTER)
        wait(driver, lambda d: "send again" in d.find_element(By.ID, "reply-status").text.lower(), "the desk to offer sending again after a lost answer")
        check(driver.switch_to.active_element.get_attribute("id") == "reply-send", "the send button lost the focus")
        keys(driver, Keys.ENTER)
        wait(driver, EC.visibility_of_element_located((By.ID, "reply-sent")), "the stored reply under the recording", seconds=60)
        sent = driver.find_element(By.ID, "reply-sent-meta").text
        # When, as the queue says times: weekday, day, month and a 24-hour time, whatever the browser's language.
        check(re.match(r"^Sent (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d\d:\d\d( ·|$)", sent), f"the stored reply says {sent!r}")
        check("mind the madd" in driver.find_element(By.ID, "reply-sent-notes").text, "the stored reply does not show its notes")
        # Encoded, the reply plays from its own route (the page reads the submission again until then).
        if wait(driver, EC.visibility_of_element_located((By.ID, "reply-audio")), "the reply's audio once it is ready", seconds=120):
            check("/v1/feedback/" in (driver.find_element(By.ID, "reply-audio").get_attribute("src") or ""), "the stored reply's audio is not its route")
            check("being prepared" not in driver.find_element(By.ID, "reply-sent-meta").text, "the ready reply is still said to be prepared")
        after = fetch(driver, "GET", "/v1/submissions/" + submission)[1] or {}
        replies = after.get("feedback") or []
        check(len(replies) == 1 and replies[0].get("notes") == "Good recitation; mind the madd in 1:2.", f"the submission's replies: {replies}")
        other = fetch(driver, "GET", "/v1/submissions/" + other_submission)[1] or {}
        check(other.get("feedback") == [], "the other recording of the same student got a reply")
        driver.execute_script("window.scrollTo(0, 0)")
        screenshots(driver, shots, "review-replied")
        screenshots(driver, shots, "marks-and-reply", show="marks")

        # "Send and next" on WAITING_ID, with S1003's recording after it in the queue: the reply is
        # stored and S1003's review opens, the player taking the focus (J's own test: desk_flow.py).
        # Then on S1003's, the last one waiting: the reply is stored and the page says none follows.
        if created[0] == 201:
            driver.get(base + "/desk/#/review/" + waiting)
            if wait(driver, EC.element_to_be_clickable((By.ID, "reply-record")), "the record button of the recording before the last"):
                # Four seconds: a take of "2 s" on the page may be just under the 2-s minimum the route enforces.
                record_take(driver, seconds=4)
                # "p of m waiting" here; on the next one the answered recording no longer counts.
                waiting_count = int(driver.find_element(By.ID, "queue-position").text.split(" of ")[1].split()[0])
                driver.find_element(By.ID, "reply-send-next").click()
                if not wait(driver, lambda d: d.current_url.endswith("#/review/" + created[1]), "Send and next to open the queue's next recording", seconds=60):
                    failures.append("the page said: " + page_said(driver))
                    screenshots(driver, shots, "send-and-next-to-next-failed")
                wait(driver, lambda d: d.find_element(By.ID, "review-body").is_displayed()
                     and d.find_element(By.ID, "review-title").text == "Al-Amin, Zaynab", "the next recording's review, named for its student (S1003)")
                wait(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "play", "the player to take the focus after Send and next")
                left = waiting_count - 1
                wait(driver, lambda d: d.find_element(By.ID, "queue-position").text == f"{left} of {left} waiting",
                     f"the answered recording out of the count ({left} of {left} waiting): Previous never goes back to it")
                wait(driver, lambda d: len((fetch(d, "GET", "/v1/submissions/" + waiting)[1] or {}).get("feedback") or []) == 1,
                     "the reply Send and next stored before moving on, on its submission once encoded", seconds=120)
            if not driver.current_url.endswith("#/review/" + created[1]):  # there already, unless the step above failed
                driver.get(base + "/desk/#/review/" + created[1])
            if wait(driver, EC.element_to_be_clickable((By.ID, "reply-record")), "the last review's record button"):
                record_take(driver, seconds=4)
                driver.find_element(By.ID, "reply-send-next").click()
                if not wait(driver, EC.visibility_of_element_located((By.ID, "reply-sent")), "the last reply stored by Send and next", seconds=60):
                    failures.append("the page said: " + page_said(driver))
                    screenshots(driver, shots, "send-and-next-failed")
                wait(driver, lambda d: "last recording waiting" in d.find_element(By.ID, "player-status").text,
                     "Send and next on the last recording to say none follows")
                check(driver.current_url.endswith("#/review/" + created[1]), "Send and next on the last recording left its review")
                wait(driver, lambda d: len((fetch(d, "GET", "/v1/submissions/" + created[1])[1] or {}).get("feedback") or []) == 1,
                     "the reply Send and next stored, on its submission once encoded", seconds=120)

        # A change without the CSRF token: 403, nothing stored.
        bare = fetch(driver, "POST", f"/v1/submissions/{other_submission}/feedback", {"Content-Type": "audio/ogg"}, "OggS")
        check(bare[0] == 403 and (bare[1] or {}).get("code") == "csrf_token_missing", f"a reply without the CSRF token: {bare}")

        # Another coach's session reaches nothing of this student: 404 to read, 404 to reply.
        driver.delete_all_cookies()
        if sign_in(driver, other_link, base):
            check(fetch(driver, "GET", "/v1/submissions/" + submission)[0] == 404, "another coach reads the recording")
            csrf = (fetch(driver, "GET", "/desk/session")[1] or {}).get("csrf_token", "")
            hostile = fetch(driver, "POST", f"/v1/submissions/{other_submission}/feedback",
                            {"Content-Type": "audio/ogg", "X-CSRF-Token": csrf}, "OggS")
            check(hostile[0] == 404, f"another coach's reply to the recording: {hostile[0]}")
            driver.get(base + "/desk/#/review/" + submission)
            error = wait(driver, EC.visibility_of_element_located((By.ID, "review-error")), "the review's refusal for another coach")
            check(error is not None and "not" in error.text.lower(), "the desk does not say the recording is not found")
            check(not driver.find_element(By.ID, "review-body").is_displayed(), "another coach sees the review's body")
    finally:
        driver.quit()
    return report("desk reply flows")



if __name__ == "__main__":
    sys.exit(main(sys.argv))
